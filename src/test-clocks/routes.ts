// HTTP for test clocks: schema, scope, call the service, shape the reply. Test keys only.
import type { RoutePlugin } from '../http/plugin.ts';
import { apiRoutes } from '../http/routes.ts';
import { errorResponses, IdParams, ListQuery, NoBody, Page } from '../http/schemas.ts';
import { DeletedTestClock, TestClock, TestClockAdvance, TestClockCreate } from './schemas.ts';
import { testClockFromRow } from './service.ts';

const tags = ['Test clocks'];

export const testClockRoutes: RoutePlugin = async (server, { testClocks, cursors }) => {
  const routes = apiRoutes(server, cursors, tags);
  routes.write(
    'POST /v1/test-clocks',
    'subscriptions:write',
    {
      summary: 'Create a test clock',
      description:
        'Test keys only (a live key gets 403 test_mode_only). Customers created with its `testClockId` live on its time.',
      body: TestClockCreate,
      response: { 201: TestClock, ...errorResponses(409, 413, 415, 422) },
    },
    (write, request) => testClocks.create(write, request.body),
  );

  routes.read(
    '/v1/test-clocks/:id',
    'subscriptions:read',
    {
      summary: 'Retrieve a test clock',
      params: IdParams,
      response: { 200: TestClock, ...errorResponses(404) },
    },
    (request) => testClocks.get(request.actor, request.params.id),
  );

  routes.list(
    '/v1/test-clocks',
    'subscriptions:read',
    {
      summary: 'List test clocks, newest first',
      querystring: ListQuery,
      response: { 200: Page(TestClock), ...errorResponses() },
    },
    {
      list: 'test_clocks',
      rows: (actor, _query, page) => testClocks.list(actor, page),
      item: testClockFromRow,
    },
  );

  routes.write(
    'POST /v1/test-clocks/:id/advance',
    'subscriptions:write',
    {
      summary: 'Advance a test clock',
      description:
        'Forward only, at most two calendar years past the clock’s time. Answers 202 with `status: advancing`, then runs in time order everything that falls due in between (period boundaries, grace periods, trial ends, cancellations, pauses ending), exactly as the worker would at those times; then `status: ready` and the event `test_clock.ready`. While it advances, another advance is 409 state_invalid.',
      params: IdParams,
      body: TestClockAdvance,
      response: { 202: TestClock, ...errorResponses(404, 409, 413, 415) },
    },
    (write, request) => testClocks.advance(write, request.params.id, request.body),
  );

  routes.write(
    'DELETE /v1/test-clocks/:id',
    'subscriptions:write',
    {
      summary: 'Delete a test clock',
      description:
        'Deletes it with its customers’ subscriptions and draft invoices; the customers and their issued invoices stay, on real time.',
      params: IdParams,
      body: NoBody,
      response: { 200: DeletedTestClock, ...errorResponses(404, 409) },
    },
    (write, request) => testClocks.remove(write, request.params.id),
  );
};
