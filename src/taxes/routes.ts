// HTTP for tax rates: schema, scope, call the service, shape the reply.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RoutePlugin } from '../http/plugin.ts';
import { sendWrite } from '../http/idempotency.ts';
import { buildPage, listBinding, readPageRequest } from '../paging.ts';
import { errorResponses, IdempotencyHeaders, IdParams, Page } from '../http/schemas.ts';
import { TaxRate, TaxRateCreate, TaxRateListQuery, TaxRateUpdate } from './schemas.ts';
import { taxRateFromRow } from './service.ts';

const tags = ['Tax rates'];

export const taxRateRoutes: RoutePlugin = async (server, { taxRates, cursors }) => {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/v1/tax-rates',
    {
      config: { scope: 'invoices:write' },
      schema: {
        tags,
        summary: 'Create a tax rate',
        description:
          '`percentage` (0 ≤ p < 100, at most 4 decimals), `inclusive` and `taxType` are fixed for the life of the rate.',
        headers: IdempotencyHeaders,
        body: TaxRateCreate,
        response: { 201: TaxRate, ...errorResponses(409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 201, (write) => taxRates.create(write, request.body)),
  );

  app.get(
    '/v1/tax-rates/:id',
    {
      config: { scope: 'invoices:read' },
      schema: {
        tags,
        summary: 'Retrieve a tax rate',
        params: IdParams,
        response: { 200: TaxRate, ...errorResponses(404) },
      },
    },
    async (request) => taxRates.get(request.actor, request.params.id),
  );

  app.patch(
    '/v1/tax-rates/:id',
    {
      config: { scope: 'invoices:write' },
      schema: {
        tags,
        summary: 'Update a tax rate',
        description:
          'Changes only the fields it names; `null` clears an optional field. `percentage`, `inclusive` and `taxType` may be sent only with their current value (400 parameter_invalid otherwise). `active: false` hides the rate from new use; invoices already carrying it are unchanged, and issued invoices never change.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: TaxRateUpdate,
        response: { 200: TaxRate, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) =>
        taxRates.update(write, request.params.id, request.body),
      ),
  );

  app.get(
    '/v1/tax-rates',
    {
      config: { scope: 'invoices:read' },
      schema: {
        tags,
        summary: 'List tax rates, newest first',
        querystring: TaxRateListQuery,
        response: { 200: Page(TaxRate), ...errorResponses() },
      },
    },
    async (request) => {
      const query = request.query;
      const { active } = query;
      const binding = listBinding(request.actor, 'tax_rates', {
        active: active === undefined ? undefined : String(active),
      });
      const page = readPageRequest(cursors, query, binding);
      const rows = await taxRates.list(request.actor, { active }, page);
      return buildPage(cursors, rows, page, binding, taxRateFromRow);
    },
  );
};
