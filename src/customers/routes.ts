// HTTP for customers: schema, scope, call the service, shape the reply.
import type { RoutePlugin } from '../http/plugin.ts';
import { resourceRoutes } from '../http/resource-routes.ts';
import { apiRoutes } from '../http/routes.ts';
import { Customer, CustomerCreate, CustomerListQuery, CustomerUpdate } from './schemas.ts';
import { customerJson } from './customer-json.ts';

export const customerRoutes: RoutePlugin = async (server, { customers, cursors }) => {
  const customer = resourceRoutes(apiRoutes(server, cursors, ['Customers']), Customer);

  customer.create(
    'POST /v1/customers',
    'customers:write',
    { summary: 'Create a customer', body: CustomerCreate },
    customers.create,
  );

  customer.retrieve(
    '/v1/customers/:id',
    'customers:read',
    { summary: 'Retrieve a customer' },
    customers.get,
  );

  customer.update(
    'PATCH /v1/customers/:id',
    'customers:write',
    {
      summary: 'Update a customer',
      description:
        'Changes only the fields it names; `null` clears an optional field. `address`, `metadata` and `taxIds` are replaced whole.',
      body: CustomerUpdate,
    },
    customers.update,
  );

  customer.list(
    '/v1/customers',
    'customers:read',
    { summary: 'List customers, newest first', querystring: CustomerListQuery },
    {
      list: 'customers',
      // The filter matches the e-mail in any case, and so does a cursor of its pages.
      filters: ({ email }) => ({ email: email?.toLowerCase() }),
      rows: customers.list,
      json: customerJson,
    },
  );
};
