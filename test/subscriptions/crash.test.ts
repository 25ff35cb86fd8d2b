// Exactly once under crashes and doubles: a test clock advanced over six monthly boundaries of
// twenty subscriptions, a second advance refused while the first runs, the server killed with
// SIGKILL in the middle, and two servers started at once that both take the advance up again.
// At the end: one invoice per (subscription, period), every one issued, numbers gapless.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '../helpers.ts';
import { killChild } from '../reliability/processes.ts';
import { client } from '../helpers.ts';
import { crashScene, createClock, createPrice } from './fixtures.ts';

const SUBSCRIPTIONS = 20;

describe('subscriptions across a crash', () => {
  it('makes one invoice per period with gapless numbers when the server dies mid-advance and two take it up', async () => {
    const { database, start, first, key, api } = await crashScene();
    const price = await createPrice(api, { unitAmount: 1500 });
    const clock = await createClock(api, '2027-01-01T00:00:00.000Z');
    const subscriptions: string[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const customer = await api.post('/v1/customers', { name: `C${i}`, testClockId: clock.id });
      const sub = await api.post('/v1/subscriptions', {
        customerId: customer.body.id,
        items: [{ priceId: price.id }],
      });
      assert.equal(sub.status, 201, sub.text);
      subscriptions.push(sub.body.id);
    }
    const target = '2027-07-01T12:00:00.000Z';
    const advanced = await api.post(`/v1/test-clocks/${clock.id}/advance`, { frozenTime: target });
    assert.equal(advanced.status, 202, advanced.text);
    assert.equal(advanced.body.status, 'advancing');
    // A second advance while the first runs is refused, and changes nothing.
    const twice = await api.post(`/v1/test-clocks/${clock.id}/advance`, { frozenTime: target });
    assert.equal(twice.status, 409, twice.text);
    assert.equal(twice.body.error.code, 'state_invalid');

    // Killed once the run is well into the boundaries, before it is done.
    const count = async () =>
      (
        await database.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM invoices WHERE tenant_id = $1',
          [key.tenantId],
        )
      ).rows[0]!.n;
    await waitFor(async () => (await count()) >= SUBSCRIPTIONS * 2, 'the advance to be under way');
    await killChild(first, 'SIGKILL');
    const killedAt = await count();
    assert.ok(killedAt < SUBSCRIPTIONS * 7, `the advance had finished (${killedAt} invoices)`);

    // Two servers at once: each takes up the advance a crash cut short as it starts.
    const [second] = await Promise.all([start(), start()]);
    const api2 = client(second.url, key.secret);
    await waitFor(
      async () => (await api2.get(`/v1/test-clocks/${clock.id}`)).body.status === 'ready',
      'the clock to be ready',
      120_000,
    );
    const ready = await api2.get(`/v1/test-clocks/${clock.id}`);
    assert.equal(ready.body.frozenTime, target);

    const { rows } = await database.db.query<{
      subscription_id: string;
      period_start: Date;
      n: number;
    }>(
      `SELECT i.subscription_id, l.period_start, count(DISTINCT i.id)::int AS n
         FROM invoices i JOIN invoice_lines l
           ON l.tenant_id = i.tenant_id AND l.environment = i.environment AND l.invoice_id = i.id
        WHERE i.tenant_id = $1 GROUP BY 1, 2`,
      [key.tenantId],
    );
    assert.equal(rows.length, SUBSCRIPTIONS * 7, 'seven periods of each subscription');
    assert.deepEqual(
      rows.filter((r) => r.n !== 1),
      [],
      'one invoice per (subscription, period)',
    );
    assert.deepEqual([...new Set(rows.map((r) => r.subscription_id))].sort(), subscriptions.sort());
    const issued = await database.db.query<{ status: string; number: string | null }>(
      'SELECT status, number FROM invoices WHERE tenant_id = $1',
      [key.tenantId],
    );
    assert.deepEqual(
      [...new Set(issued.rows.map((r) => r.status))],
      ['open'],
      'every invoice issued after its grace period',
    );
    const numbers = issued.rows
      .map((r) => Number(r.number!.split('-').pop()))
      .sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      numbers.map((_, i) => numbers[0]! + i),
      'numbers without a gap',
    );
    const events = await database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE tenant_id = $1 AND type = 'test_clock.ready'`,
      [key.tenantId],
    );
    assert.equal(events.rows[0]!.n, 1, 'test_clock.ready once');
  });
});
