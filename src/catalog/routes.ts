// HTTP for products and prices: schema, scope, call the service, shape the reply.
import type { preValidationHookHandler } from 'fastify';
import { ParameterInvalidError } from '../errors.ts';
import type { RoutePlugin } from '../http/plugin.ts';
import { routeHooks } from '../http/route-hooks.ts';
import { resourceRoutes } from '../http/resource-routes.ts';
import { apiRoutes } from '../http/routes.ts';
import {
  Price,
  PriceCreate,
  PriceListQuery,
  PriceUpdate,
  Product,
  ProductCreate,
  ProductListQuery,
  ProductUpdate,
} from './schemas.ts';
import { priceFromRow, productFromRow } from './service.ts';

// The fields of a price's creation that a PATCH may not name: refused by name, with why,
// rather than as unknown parameters.
const FIXED_TERMS = Object.keys(PriceCreate.properties).filter(
  (field) => !(field in PriceUpdate.properties),
);

const refuseTermsChange: preValidationHookHandler = (request, _reply, done) => {
  const body = request.body;
  const named =
    typeof body === 'object' && body !== null ? FIXED_TERMS.find((f) => f in body) : undefined;
  done(
    named === undefined
      ? undefined
      : new ParameterInvalidError(
          named,
          `${named} cannot change: a price's terms and amounts are fixed when it is created. Create a new price (and set active: false on this one) instead.`,
        ),
  );
};

export const productRoutes: RoutePlugin = async (server, { products, cursors }) => {
  const product = resourceRoutes(apiRoutes(server, cursors, ['Products']), Product);

  product.create(
    'POST /v1/products',
    'subscriptions:write',
    {
      summary: 'Create a product',
      description:
        '`taxRates` must be rates of this environment, active, and all inclusive or all exclusive; `unitCode` defaults to C62 (one).',
      body: ProductCreate,
    },
    products.create,
  );

  product.retrieve(
    '/v1/products/:id',
    'subscriptions:read',
    { summary: 'Retrieve a product' },
    products.get,
  );

  product.update(
    'PATCH /v1/products/:id',
    'subscriptions:write',
    {
      summary: 'Update a product',
      description:
        'Changes only the fields it names; `null` clears the description or the metadata. `taxRates` is replaced whole. Invoices already made keep what they were made with.',
      body: ProductUpdate,
    },
    products.update,
  );

  product.list(
    '/v1/products',
    'subscriptions:read',
    { summary: 'List products, newest first', querystring: ProductListQuery },
    { list: 'products', rows: products.list, item: productFromRow },
  );
};

// The PATCH hook is added in this module's scope: no other route gets it.
export const priceRoutes: RoutePlugin = async (server, { prices, cursors }) => {
  server.addHook('onRoute', (route) => {
    if (route.method === 'PATCH' && route.url === '/v1/prices/:id') {
      route.preValidation = [refuseTermsChange, ...routeHooks(route.preValidation)];
    }
  });
  const price = resourceRoutes(apiRoutes(server, cursors, ['Prices']), Price);

  price.create(
    'POST /v1/prices',
    'subscriptions:write',
    {
      summary: 'Create a price',
      description:
        'A price of a product in one currency: `one_time` or `recurring` (a period of at most a year), billed per unit, in tiers, or by the package. A line’s amount is computed exactly and rounded once, half away from zero. A metered price (`recurring.usage: metered`) names its meter (`recurring.meterId`) and is billed in arrears for the usage it measures.',
      body: PriceCreate,
    },
    prices.create,
  );

  price.retrieve(
    '/v1/prices/:id',
    'subscriptions:read',
    { summary: 'Retrieve a price' },
    prices.get,
  );

  price.update(
    'PATCH /v1/prices/:id',
    'subscriptions:write',
    {
      summary: 'Update a price',
      description:
        'Changes only `active`, `nickname` and `metadata` (`null` clears the last two). A price’s terms and amounts never change: a body naming any other field of its creation is 400 parameter_invalid with that field as `param`.',
      body: PriceUpdate,
    },
    prices.update,
  );

  price.list(
    '/v1/prices',
    'subscriptions:read',
    { summary: 'List prices, newest first', querystring: PriceListQuery },
    { list: 'prices', rows: prices.list, item: priceFromRow },
  );
};
