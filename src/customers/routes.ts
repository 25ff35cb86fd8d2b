// HTTP for customers: schema, scope, call the service, shape the reply.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RoutePlugin } from '../http/plugin.ts';
import { sendWrite } from '../http/idempotency.ts';
import { buildPage, listBinding, readPageRequest } from '../paging.ts';
import { errorResponses, IdempotencyHeaders, IdParams, Page } from '../http/schemas.ts';
import { Customer, CustomerCreate, CustomerListQuery, CustomerUpdate } from './schemas.ts';
import { customerFromRow } from './service.ts';

const tags = ['Customers'];

export const customerRoutes: RoutePlugin = async (server, { customers, cursors }) => {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/v1/customers',
    {
      config: { scope: 'customers:write' },
      schema: {
        tags,
        summary: 'Create a customer',
        headers: IdempotencyHeaders,
        body: CustomerCreate,
        response: { 201: Customer, ...errorResponses(409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 201, (write) => customers.create(write, request.body)),
  );

  app.get(
    '/v1/customers/:id',
    {
      config: { scope: 'customers:read' },
      schema: {
        tags,
        summary: 'Retrieve a customer',
        params: IdParams,
        response: { 200: Customer, ...errorResponses(404) },
      },
    },
    async (request) => customers.get(request.actor, request.params.id),
  );

  app.patch(
    '/v1/customers/:id',
    {
      config: { scope: 'customers:write' },
      schema: {
        tags,
        summary: 'Update a customer',
        description:
          'Changes only the fields it names; `null` clears an optional field. `address`, `metadata` and `taxIds` are replaced whole.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: CustomerUpdate,
        response: { 200: Customer, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) =>
        customers.update(write, request.params.id, request.body),
      ),
  );

  app.get(
    '/v1/customers',
    {
      config: { scope: 'customers:read' },
      schema: {
        tags,
        summary: 'List customers, newest first',
        querystring: CustomerListQuery,
        response: { 200: Page(Customer), ...errorResponses() },
      },
    },
    async (request) => {
      const { email } = request.query;
      const binding = listBinding(request.actor, 'customers', { email: email?.toLowerCase() });
      const page = readPageRequest(cursors, request.query, binding);
      const rows = await customers.list(request.actor, { email }, page);
      return buildPage(cursors, rows, page, binding, customerFromRow);
    },
  );
};
