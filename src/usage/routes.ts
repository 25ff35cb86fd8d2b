// HTTP for meters, usage events and usage summaries: schema, scope, call the service, shape
// the reply.
import type { FastifySchemaCompiler } from 'fastify';
import {
  BodyInvalidError,
  ParameterInvalidError,
  ParameterMissingError,
  type ApiError,
} from '../errors.ts';
import { refuseFixedFields } from '../http/fixed-fields.ts';
import type { RoutePlugin } from '../http/plugin.ts';
import { routeHooks } from '../http/route-hooks.ts';
import { apiRoutes } from '../http/routes.ts';
import { errorResponses, IdParams, ListQuery, Page } from '../http/schemas.ts';
import { refuseUnstorableText } from '../http/storable-text.ts';
import {
  MAX_EVENTS,
  Meter,
  MeterCreate,
  MeterUpdate,
  UsageEventBatch,
  UsageEventOutcomes,
  UsageSummaries,
  UsageSummaryQuery,
} from './schemas.ts';
import { meterFromRow } from './service.ts';

export const meterRoutes: RoutePlugin = async (server, { usage, cursors }) => {
  refuseFixedFields(
    server,
    '/v1/meters/:id',
    { create: MeterCreate, update: MeterUpdate },
    'What a meter measures is fixed when it is created: create a new meter (and set status: inactive on this one) instead.',
  );
  const routes = apiRoutes(server, cursors, ['Meters']);
  routes.write(
    'POST /v1/meters',
    'subscriptions:write',
    {
      summary: 'Create a meter',
      description:
        'A meter aggregates the usage events of its `eventName`: `sum`, `max` or `last` of `valueProperty`, `count` of events, or `unique_count` of distinct values of `valueProperty`. It measures the events of its name already kept as well as those to come.',
      body: MeterCreate,
      response: { 201: Meter, ...errorResponses(409, 413, 415, 422) },
    },
    (write, request) => usage.meters.create(write, request.body),
  );

  routes.read(
    '/v1/meters/:id',
    'subscriptions:read',
    {
      summary: 'Retrieve a meter',
      params: IdParams,
      response: { 200: Meter, ...errorResponses(404) },
    },
    (request) => usage.meters.get(request.actor, request.params.id),
  );

  routes.write(
    'PATCH /v1/meters/:id',
    'subscriptions:write',
    {
      summary: 'Update a meter',
      description:
        'Changes only `displayName` and `status`: a body naming any other field of its creation is 400 parameter_invalid with that field as `param`. An inactive meter still measures; events are no longer checked against it.',
      params: IdParams,
      body: MeterUpdate,
      response: { 200: Meter, ...errorResponses(404, 409, 413, 415, 422) },
    },
    (write, request) => usage.meters.update(write, request.params.id, request.body),
  );

  routes.list(
    '/v1/meters',
    'subscriptions:read',
    {
      summary: 'List meters, newest first',
      querystring: ListQuery,
      response: { 200: Page(Meter), ...errorResponses() },
    },
    {
      list: 'meters',
      rows: (actor, _query, page) => usage.meters.list(actor, page),
      item: meterFromRow,
    },
  );

  apiRoutes(server, cursors, ['Usage']).read(
    '/v1/meters/:id/summaries',
    'usage:read',
    {
      summary: 'Summarize a customer’s usage',
      description:
        'The meter’s aggregation of the customer’s events over [`from`, `to`): in one bucket, or cut at each local hour or midnight of the customer’s time zone (its own, else the tenant’s), so the first and last buckets may be partial; at most 1,000 buckets. Values are exact decimal strings, "0" where there is no usage.',
      params: IdParams,
      querystring: UsageSummaryQuery,
      response: { 200: UsageSummaries, ...errorResponses(404) },
    },
    (request) => usage.summarize(request.actor, request.params.id, request.query),
  );
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body as a whole: `{ events }` with 1–1,000 of them, whatever each event holds. */
function batchRefusal(body: unknown): ApiError | undefined {
  if (!isObject(body)) return new BodyInvalidError('The body is a JSON object: { events }.');
  const unknown = Object.keys(body).find((field) => field !== 'events');
  if (unknown !== undefined)
    return new ParameterInvalidError(unknown, `Unknown parameter: ${unknown}.`);
  const { events } = body;
  if (events === undefined) return new ParameterMissingError('events');
  if (!Array.isArray(events) || events.length < 1 || events.length > MAX_EVENTS) {
    return new ParameterInvalidError(
      'events',
      `events must be an array of 1 to ${MAX_EVENTS} events; send more in further requests.`,
    );
  }
  return undefined;
}

// The body's schema documents an event; each event is checked on its own by the service, so
// that one event breaking a rule is refused alone. The route therefore validates only the
// batch as a whole, and refuses a query string (it takes none).
const batchOnly: FastifySchemaCompiler<unknown> =
  ({ httpPart }) =>
  (data) => {
    if (httpPart === 'body') {
      const refusal = batchRefusal(data);
      return refusal ? { error: refusal } : { value: data };
    }
    const unknown = httpPart === 'querystring' && isObject(data) ? Object.keys(data)[0] : undefined;
    return unknown === undefined
      ? { value: data }
      : { error: new ParameterInvalidError(unknown, `Unknown parameter: ${unknown}.`) };
  };

export const usageEventRoutes: RoutePlugin = async (server, { usage, cursors }) => {
  server.addHook('onRoute', (route) => {
    route.validatorCompiler = batchOnly;
    // Text PostgreSQL cannot store refuses its own event only (src/usage/events.ts).
    route.preHandler = routeHooks(route.preHandler).filter((h) => h !== refuseUnstorableText);
  });
  apiRoutes(server, cursors, ['Usage']).write(
    'POST /v1/usage-events',
    'usage:write',
    {
      summary: 'Send usage events',
      description:
        'Each event counts once per tenant, environment and `id`, however often it is sent: the answer (200) gives each event’s outcome in the order sent — `accepted`, `duplicate` (the same id with the same content was accepted before, or earlier in the batch), or `error` with a code of its own. One event refused never refuses the others; a request refused as a whole (its key, its body, more than 1,000 events) accepts none. Accepted events are durable when the answer is sent.',
      body: UsageEventBatch,
      response: { 200: UsageEventOutcomes, ...errorResponses(409, 413, 415, 422) },
    },
    (write, request) => usage.record(write, request.body.events as unknown[]),
    // A batch holds a pooled connection for its whole transaction: a flood of batches took
    // every connection of the pool while other requests queued behind them. Taking turns
    // leaves half the pool to the rest (docs/usage.md, "Sending events").
    true,
  );
};
