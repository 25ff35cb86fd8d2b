// HTTP for customers: schema, scope, call the service, shape the reply.
import type { RoutePlugin } from '../http/plugin.ts';
import { apiRoutes } from '../http/routes.ts';
import { errorResponses, IdParams, Page } from '../http/schemas.ts';
import { Customer, CustomerCreate, CustomerListQuery, CustomerUpdate } from './schemas.ts';
import { customerFromRow } from './service.ts';

const tags = ['Customers'];

export const customerRoutes: RoutePlugin = async (server, { customers, cursors }) => {
  const routes = apiRoutes(server, cursors, tags);
  routes.write(
    'POST /v1/customers',
    'customers:write',
    {
      summary: 'Create a customer',
      body: CustomerCreate,
      response: { 201: Customer, ...errorResponses(404, 409, 413, 415, 422) },
    },
    (write, request) => customers.create(write, request.body),
  );

  routes.read(
    '/v1/customers/:id',
    'customers:read',
    {
      summary: 'Retrieve a customer',
      params: IdParams,
      response: { 200: Customer, ...errorResponses(404) },
    },
    (request) => customers.get(request.actor, request.params.id),
  );

  routes.write(
    'PATCH /v1/customers/:id',
    'customers:write',
    {
      summary: 'Update a customer',
      description:
        'Changes only the fields it names; `null` clears an optional field. `address`, `metadata` and `taxIds` are replaced whole.',
      params: IdParams,
      body: CustomerUpdate,
      response: { 200: Customer, ...errorResponses(404, 409, 413, 415, 422) },
    },
    (write, request) => customers.update(write, request.params.id, request.body),
  );

  routes.list(
    '/v1/customers',
    'customers:read',
    {
      summary: 'List customers, newest first',
      querystring: CustomerListQuery,
      response: { 200: Page(Customer), ...errorResponses() },
    },
    {
      list: 'customers',
      filters: ({ email }) => ({ email: email?.toLowerCase() }),
      rows: (actor, { email }, page) => customers.list(actor, { email }, page),
      item: customerFromRow,
    },
  );
};
