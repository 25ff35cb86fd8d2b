// The billing run in batches, exactly once: 2,000 subscriptions on a test clock cross one
// monthly boundary; the server running the advance is killed with SIGKILL in the middle of it,
// and two servers started at once both take it up, claiming batches side by side. At the end:
// one invoice per subscription, every one issued, its events once, numbers gapless.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, waitFor } from '../helpers.ts';
import { killChild } from '../reliability/processes.ts';
import { crashScene, createClock, createPrice } from './fixtures.ts';

const SUBSCRIPTIONS = 2000;
const BOUNDARY = '2027-02-01T00:00:00.000Z';

describe('the billing run at a boundary of many subscriptions', () => {
  it('invoices each subscription once with gapless numbers under two workers and a SIGKILL', async () => {
    const { database, start, first, key, api } = await crashScene();
    const settings = await api.patch('/v1/settings', { invoiceGraceMinutes: 0 });
    assert.equal(settings.status, 200, settings.text);
    const price = await createPrice(api, { unitAmount: 2500 });
    const clock = await createClock(api, '2027-01-20T00:00:00.000Z');
    // A free stub until the anchor: nothing is invoiced before the boundary.
    const subscribe = async (i: number) => {
      const customer = await api.post('/v1/customers', { name: `C${i}`, testClockId: clock.id });
      const sub = await api.post('/v1/subscriptions', {
        customerId: customer.body.id,
        items: [{ priceId: price.id }],
        billingCycleAnchor: BOUNDARY,
        prorationBehavior: 'none',
      });
      assert.equal(sub.status, 201, sub.text);
      assert.equal(sub.body.latestInvoiceId, null);
    };
    for (let i = 0; i < SUBSCRIPTIONS; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => subscribe(i + j)));
    }

    const target = '2027-02-01T01:00:00.000Z';
    const advanced = await api.post(`/v1/test-clocks/${clock.id}/advance`, { frozenTime: target });
    assert.equal(advanced.status, 202, advanced.text);
    const count = async () =>
      (
        await database.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM invoices WHERE tenant_id = $1',
          [key.tenantId],
        )
      ).rows[0]!.n;
    await waitFor(async () => (await count()) >= 200, 'the run to be under way', 60_000);
    await killChild(first, 'SIGKILL');
    const killedAt = await count();
    assert.ok(killedAt < SUBSCRIPTIONS, `the run had finished (${killedAt} invoices)`);

    // Two servers at once: each takes up the advance the crash cut short as it starts.
    const [second] = await Promise.all([start(), start()]);
    const api2 = client(second.url, key.secret);
    await waitFor(
      async () => (await api2.get(`/v1/test-clocks/${clock.id}`)).body.status === 'ready',
      'the clock to be ready',
      120_000,
    );

    const { rows } = await database.db.query<{
      invoices: number;
      subscriptions: number;
      open: number;
      min: number;
      max: number;
    }>(
      `SELECT count(*)::int AS invoices, count(DISTINCT subscription_id)::int AS subscriptions,
              count(*) FILTER (WHERE status = 'open')::int AS open,
              min(substring(number FROM '[0-9]+$')::int) AS min,
              max(substring(number FROM '[0-9]+$')::int) AS max
         FROM invoices WHERE tenant_id = $1 AND billing_reason = 'subscription_cycle'`,
      [key.tenantId],
    );
    assert.deepEqual(rows[0], {
      invoices: SUBSCRIPTIONS,
      subscriptions: SUBSCRIPTIONS,
      open: SUBSCRIPTIONS,
      min: 1,
      max: SUBSCRIPTIONS,
    });
    const events = await database.db.query<{ type: string; n: number; objects: number }>(
      `SELECT type, count(*)::int AS n, count(DISTINCT object_id)::int AS objects FROM events
        WHERE tenant_id = $1 AND type IN ('invoice.created', 'invoice.issued')
        GROUP BY type ORDER BY type`,
      [key.tenantId],
    );
    assert.deepEqual(events.rows, [
      { type: 'invoice.created', n: SUBSCRIPTIONS, objects: SUBSCRIPTIONS },
      { type: 'invoice.issued', n: SUBSCRIPTIONS, objects: SUBSCRIPTIONS },
    ]);
    const ledger = await database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM subscription_invoices
        WHERE tenant_id = $1 AND period_start = $2 AND invoice_id IS NOT NULL AND work IS NULL`,
      [key.tenantId, BOUNDARY],
    );
    assert.equal(ledger.rows[0]!.n, SUBSCRIPTIONS, 'every invoice claimed once, its work done');
  });
});
