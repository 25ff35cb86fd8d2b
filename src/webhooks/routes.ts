// HTTP for webhook endpoints and their deliveries: schema, scope, call the service, shape the
// reply.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RoutePlugin } from '../http/plugin.ts';
import { resourceRoutes } from '../http/resource-routes.ts';
import { apiRoutes } from '../http/routes.ts';
import { buildPage, listBinding, readPageRequest } from '../paging.ts';
import { errorResponses, IdParams, ListQuery, NoBody, Page } from '../http/schemas.ts';
import { deliveryFromRow } from './deliveries.ts';
import { endpointFromRow } from './endpoints.ts';
import {
  DeletedWebhookEndpoint,
  DeliveryParams,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
} from './schemas.ts';

const tags = ['Webhooks'];

const DELIVERY_RULES =
  'Deliveries follow Standard Webhooks: `POST` of `{ type, timestamp, data }` with the headers `webhook-id` (the event id, the same on every retry), `webhook-timestamp` and `webhook-signature`. A 2xx within 10 s succeeds; anything else (another status, a redirect, a timeout, a connection error) is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (±10 % jitter), never sooner than a `Retry-After` from the receiver asks (up to 24 h). `410 Gone` disables the endpoint at once; so do 5 days of failures. Disabling cancels pending deliveries.';

export const webhookEndpointRoutes: RoutePlugin = async (server, { webhookEndpoints, cursors }) => {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  const routes = apiRoutes(server, cursors, tags);

  const endpoint = resourceRoutes(routes, WebhookEndpoint);

  endpoint.create(
    'POST /v1/webhook-endpoints',
    'webhooks:write',
    {
      summary: 'Create a webhook endpoint',
      description: `The reply holds the signing secret, shown this once only. The URL must be \`https\` and its host must resolve only to public addresses (not loopback, private, link-local, CGNAT, multicast or reserved, in IPv4 or IPv6): else 400 \`parameter_invalid\` with \`param: "url"\`. When the server runs with WEBHOOKS_ALLOW_LOOPBACK, test-environment endpoints may also use \`http\` and loopback addresses. ${DELIVERY_RULES}`,
      body: WebhookEndpointCreate,
      answer: WebhookEndpointWithSecret,
      errors: [409, 413, 415, 422],
    },
    webhookEndpoints.create,
  );

  endpoint.list(
    '/v1/webhook-endpoints',
    'webhooks:read',
    { summary: 'List webhook endpoints, newest first' },
    {
      list: 'webhook_endpoints',
      rows: (actor, _filters, page) => webhookEndpoints.list(actor, page),
      item: endpointFromRow,
    },
  );

  endpoint.retrieve(
    '/v1/webhook-endpoints/:id',
    'webhooks:read',
    { summary: 'Retrieve a webhook endpoint (without its secret)' },
    webhookEndpoints.get,
  );

  endpoint.update(
    'PATCH /v1/webhook-endpoints/:id',
    'webhooks:write',
    {
      summary: 'Update a webhook endpoint',
      description:
        'Changes only the fields it names; a new `url` is checked as on creation. `disabled: false` re-enables an endpoint, also one the service disabled, and clears its record of failures; cancelled deliveries can then be retried one by one.',
      body: WebhookEndpointUpdate,
    },
    webhookEndpoints.change,
  );

  endpoint.action(
    'DELETE /v1/webhook-endpoints/:id',
    'webhooks:write',
    {
      summary: 'Delete a webhook endpoint with its deliveries',
      answer: DeletedWebhookEndpoint,
      errors: [404, 409, 422],
    },
    webhookEndpoints.remove,
  );

  app.get(
    '/v1/webhook-endpoints/:id/deliveries',
    {
      config: { scope: 'webhooks:read', expensive: 'large-page' },
      schema: {
        tags,
        summary: "List an endpoint's deliveries with their attempts, newest first",
        description: `One delivery per event sent to the endpoint, each with every attempt (status, duration, error, first 1 KB of the response). ${DELIVERY_RULES}`,
        params: IdParams,
        querystring: ListQuery,
        response: { 200: Page(WebhookDelivery), ...errorResponses(404) },
      },
    },
    async (request) => {
      const endpointId = request.params.id;
      const binding = listBinding(request.actor, 'webhook_deliveries', { endpointId });
      const page = readPageRequest(cursors, request.query, binding);
      const { rows, attemptsOf } = await webhookEndpoints.deliveries(
        request.actor,
        endpointId,
        page,
      );
      return buildPage(cursors, rows, page, binding, (row) =>
        deliveryFromRow(row, attemptsOf(row)),
      );
    },
  );

  routes.write(
    'POST /v1/webhook-endpoints/:id/deliveries/:deliveryId/retry',
    'webhooks:write',
    {
      summary: 'Attempt a delivery again now',
      description:
        'Makes the delivery due at once, whatever its status (a succeeded one is sent again, with the same `webhook-id`). It then follows the retry schedule from the attempts it already had. 409 `state_invalid` while the endpoint is disabled or an attempt is in flight.',
      params: DeliveryParams,
      body: NoBody,
      response: { 200: WebhookDelivery, ...errorResponses(404, 409, 413, 415, 422) },
    },
    (write, request) =>
      webhookEndpoints.retryDelivery(write, request.params.id, request.params.deliveryId),
  );
};
