// HTTP for tax rates: schema, scope, call the service, shape the reply.
import type { RoutePlugin } from '../http/plugin.ts';
import { apiRoutes } from '../http/routes.ts';
import { errorResponses, IdParams, Page } from '../http/schemas.ts';
import { TaxRate, TaxRateCreate, TaxRateListQuery, TaxRateUpdate } from './schemas.ts';
import { taxRateFromRow } from './service.ts';

const tags = ['Tax rates'];

export const taxRateRoutes: RoutePlugin = async (server, { taxRates, cursors }) => {
  const routes = apiRoutes(server, cursors, tags);
  routes.write(
    'POST /v1/tax-rates',
    'invoices:write',
    {
      summary: 'Create a tax rate',
      description:
        '`percentage` (0 ≤ p < 100, at most 4 decimals), `inclusive` and `taxType` are fixed for the life of the rate.',
      body: TaxRateCreate,
      response: { 201: TaxRate, ...errorResponses(409, 413, 415, 422) },
    },
    (write, request) => taxRates.create(write, request.body),
  );

  routes.read(
    '/v1/tax-rates/:id',
    'invoices:read',
    {
      summary: 'Retrieve a tax rate',
      params: IdParams,
      response: { 200: TaxRate, ...errorResponses(404) },
    },
    (request) => taxRates.get(request.actor, request.params.id),
  );

  routes.write(
    'PATCH /v1/tax-rates/:id',
    'invoices:write',
    {
      summary: 'Update a tax rate',
      description:
        'Changes only the fields it names; `null` clears an optional field. `percentage`, `inclusive` and `taxType` may be sent only with their current value (400 parameter_invalid otherwise). `active: false` hides the rate from new use; invoices already carrying it are unchanged, and issued invoices never change.',
      params: IdParams,
      body: TaxRateUpdate,
      response: { 200: TaxRate, ...errorResponses(404, 409, 413, 415, 422) },
    },
    (write, request) => taxRates.update(write, request.params.id, request.body),
  );

  routes.list(
    '/v1/tax-rates',
    'invoices:read',
    {
      summary: 'List tax rates, newest first',
      querystring: TaxRateListQuery,
      response: { 200: Page(TaxRate), ...errorResponses() },
    },
    {
      list: 'tax_rates',
      filters: ({ active }) => ({ active: active === undefined ? undefined : String(active) }),
      rows: (actor, { active }, page) => taxRates.list(actor, { active }, page),
      item: taxRateFromRow,
    },
  );
};
