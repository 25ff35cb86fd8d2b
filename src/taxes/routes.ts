// HTTP for tax rates: schema, scope, call the service, shape the reply.
import type { RoutePlugin } from '../http/plugin.ts';
import { resourceRoutes } from '../http/resource-routes.ts';
import { apiRoutes } from '../http/routes.ts';
import { TaxRate, TaxRateCreate, TaxRateListQuery, TaxRateUpdate } from './schemas.ts';
import { taxRateFromRow } from './service.ts';

export const taxRateRoutes: RoutePlugin = async (server, { taxRates, cursors }) => {
  const taxRate = resourceRoutes(apiRoutes(server, cursors, ['Tax rates']), TaxRate);

  taxRate.create(
    'POST /v1/tax-rates',
    'invoices:write',
    {
      summary: 'Create a tax rate',
      description:
        '`percentage` (0 ≤ p < 100, at most 4 decimals), `inclusive` and `taxType` are fixed for the life of the rate.',
      body: TaxRateCreate,
      errors: [409, 413, 415, 422],
    },
    taxRates.create,
  );

  taxRate.retrieve(
    '/v1/tax-rates/:id',
    'invoices:read',
    { summary: 'Retrieve a tax rate' },
    taxRates.get,
  );

  taxRate.update(
    'PATCH /v1/tax-rates/:id',
    'invoices:write',
    {
      summary: 'Update a tax rate',
      description:
        'Changes only the fields it names; `null` clears an optional field. `percentage`, `inclusive` and `taxType` may be sent only with their current value (400 parameter_invalid otherwise). `active: false` hides the rate from new use; invoices already carrying it are unchanged, and issued invoices never change.',
      body: TaxRateUpdate,
    },
    taxRates.update,
  );

  taxRate.list(
    '/v1/tax-rates',
    'invoices:read',
    { summary: 'List tax rates, newest first', querystring: TaxRateListQuery },
    { list: 'tax_rates', rows: taxRates.list, item: taxRateFromRow },
  );
};
