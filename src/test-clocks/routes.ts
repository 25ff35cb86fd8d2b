// HTTP for test clocks: schema, scope, call the service, shape the reply. Test keys only.
import type { RoutePlugin } from '../http/plugin.ts';
import { resourceRoutes } from '../http/resource-routes.ts';
import { apiRoutes } from '../http/routes.ts';
import { DeletedTestClock, TestClock, TestClockAdvance, TestClockCreate } from './schemas.ts';
import { testClockFromRow } from './service.ts';

export const testClockRoutes: RoutePlugin = async (server, { testClocks, cursors }) => {
  const testClock = resourceRoutes(apiRoutes(server, cursors, ['Test clocks']), TestClock);

  testClock.create(
    'POST /v1/test-clocks',
    'subscriptions:write',
    {
      summary: 'Create a test clock',
      description:
        'Test keys only (a live key gets 403 test_mode_only). Customers created with its `testClockId` live on its time.',
      body: TestClockCreate,
      errors: [409, 413, 415, 422],
    },
    testClocks.create,
  );

  testClock.retrieve(
    '/v1/test-clocks/:id',
    'subscriptions:read',
    { summary: 'Retrieve a test clock' },
    testClocks.get,
  );

  testClock.list(
    '/v1/test-clocks',
    'subscriptions:read',
    { summary: 'List test clocks, newest first' },
    {
      list: 'test_clocks',
      rows: (actor, _filters, page) => testClocks.list(actor, page),
      item: testClockFromRow,
    },
  );

  testClock.action(
    'POST /v1/test-clocks/:id/advance',
    'subscriptions:write',
    {
      summary: 'Advance a test clock',
      description:
        'Forward only, at most two calendar years past the clock’s time. Answers 202 with `status: advancing`, then runs in time order everything that falls due in between (period boundaries, grace periods, trial ends, cancellations, pauses ending), exactly as the worker would at those times; then `status: ready` and the event `test_clock.ready`. While it advances, another advance is 409 state_invalid.',
      body: TestClockAdvance,
      status: 202,
      errors: [404, 409, 413, 415],
    },
    testClocks.advance,
  );

  testClock.action(
    'DELETE /v1/test-clocks/:id',
    'subscriptions:write',
    {
      summary: 'Delete a test clock',
      description:
        'Deletes it with its customers’ subscriptions and draft invoices; the customers and their issued invoices stay, on real time.',
      answer: DeletedTestClock,
      errors: [404, 409],
    },
    testClocks.remove,
  );
};
