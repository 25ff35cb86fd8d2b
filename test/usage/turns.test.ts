// Batches of usage events take turns with the tenant's other expensive requests
// (src/http/expensive-requests.ts): a burst beyond the tenant's queue is refused whole with 429,
// and sent again, every event still counts exactly once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey, startTestApp } from '../helpers.ts';

// One turn and one place in the queue: of a burst of batches, most are refused at once.
const server = await startTestApp({
  expensivePerTenant: 1,
  expensiveTotal: 2,
  expensiveQueuePerTenant: 1,
});
const tenant = await createTenantWithKey(server.db);
const api = client(server.url, tenant.secret);
const customer = (await api.post('/v1/customers', { name: 'Ada' })).body as { id: string };

const timestamp = new Date(Date.now() - 60_000).toISOString();
const batch = (b: number) =>
  Array.from({ length: 1000 }, (_, i) => ({
    id: `turn-${b}-${i}`,
    eventName: 'api_call',
    customerId: customer.id,
    timestamp,
    properties: { units: 1 },
  }));

describe('usage events taking turns', () => {
  it('refuses a burst beyond the queue whole with 429; sent again, each event counts once', async () => {
    const batches = Array.from({ length: 6 }, (_, b) => batch(b));
    const [answers, whoami] = await Promise.all([
      Promise.all(batches.map((events) => api.post('/v1/usage-events', { events }))),
      api.get('/v1/auth/whoami'),
    ]);
    assert.equal(whoami.status, 200);
    const served = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    assert.equal(served.length + refused.length, 6);
    assert.ok(served.length >= 2, `${served.length} served`);
    assert.ok(refused.length >= 1, 'none refused');
    for (const res of refused) {
      assert.equal(res.body.error.code, 'rate_limited');
      assert.equal(res.headers.get('retry-after'), '1');
    }
    for (const res of served) {
      assert.ok(res.body.data.every((o: { status: string }) => o.status === 'accepted'));
    }
    // Every batch again, one at a time: what was served is duplicate, what was refused counts now.
    for (const [b, events] of batches.entries()) {
      const again = await api.post('/v1/usage-events', { events });
      assert.equal(again.status, 200, again.text);
      const expected = answers[b]!.status === 200 ? 'duplicate' : 'accepted';
      assert.ok(
        again.body.data.every((o: { status: string }) => o.status === expected),
        `batch ${b}: ${expected} expected`,
      );
    }
  });
});
