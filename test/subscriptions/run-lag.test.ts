// /metrics shows the billing run's lag (billing_subscription_run_lag_seconds): how long the
// oldest boundary due and not yet invoiced has waited, on real time and on a test clock's own
// time; 0 once the run has done it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, client, createTenantWithKey, createTestDatabase } from '../helpers.ts';
import { drivenClock, startTestServer, waitFor } from '../helpers.ts';
import { createClock, createPrice } from './fixtures.ts';

const start = new Date('2027-03-10T12:00:00.000Z');
const clock = drivenClock(start);
const url = await createTestDatabase();
// No worker: the lag stays until the test starts one.
const server = await startTestServer(url, { runWorker: false }, undefined, clock);

async function lag(): Promise<number> {
  const res = await call(server.url, 'GET', '/metrics');
  assert.equal(res.status, 200, res.text);
  const sample = /^billing_subscription_run_lag_seconds (\S+)$/m.exec(res.text);
  assert.ok(sample, 'billing_subscription_run_lag_seconds is exposed');
  return Number(sample[1]);
}

describe('the billing run lag on /metrics', () => {
  it('is the age of the oldest due boundary, on real time and on a test clock, and 0 once run', async () => {
    const key = await createTenantWithKey(server.db);
    const api = client(server.url, key.secret);
    const price = await createPrice(api, { unitAmount: 1000 });
    const anchor = new Date(start.getTime() + 3600_000).toISOString();
    const subscribe = async (body: Record<string, unknown>) => {
      const customer = await api.post('/v1/customers', { name: 'Lag', ...body });
      const sub = await api.post('/v1/subscriptions', {
        customerId: customer.body.id,
        items: [{ priceId: price.id }],
        billingCycleAnchor: body.testClockId ? '2027-02-01T00:00:00.000Z' : anchor,
        prorationBehavior: 'none',
      });
      assert.equal(sub.status, 201, sub.text);
    };
    await subscribe({});
    assert.equal(await lag(), 0, 'nothing due yet');

    clock.advance(3600_000 + 90_000);
    assert.equal(await lag(), 90, 'the real-time boundary an hour on, 90 s ago');

    // A test clock standing 5 minutes past its subscription's boundary, as a crash would
    // leave it (the clock moved, its run not yet done).
    const testClock = await createClock(api, '2027-01-20T00:00:00.000Z');
    await subscribe({ testClockId: testClock.id });
    await server.db.query(
      `UPDATE test_clocks SET frozen_time = '2027-02-01T00:05:00Z' WHERE tenant_id = $1 AND id = $2`,
      [key.tenantId, testClock.id],
    );
    assert.equal(await lag(), 300, 'the clock’s boundary, due 300 s ago on its own time');

    // A worker on the same database and clock runs what is due on real time.
    const worker = await startTestServer(url, { runWorker: true }, undefined, clock);
    await waitFor(async () => {
      clock.advance(1_000);
      return (await lag()) === 300;
    }, 'the worker to invoice the real-time boundary');
    await worker.close();
  });
});
