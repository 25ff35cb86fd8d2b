// The billing run's statements per invoice, counted on the wire (../db/wire-counter.ts) between
// the server's pool and the database: SUBSCRIPTIONS subscriptions on a test clock cross a
// monthly boundary, and each invoice made, issued and (for autoSend) e-mailed costs at most
// CEILING statements, everything of the advance included (the clock's moves, the batches'
// claims, their outcome statements). A change that adds a statement per invoice fails here,
// with the statements it sent, rather than showing up later as a slower benchmark. Lower the
// ceiling when a change saves statements; raise it only with the reason in the commit.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createPool } from '../../src/db/pool.ts';
import {
  client,
  createTenantWithKey,
  createTestDatabase,
  directUrl,
  drivenClock,
  startTestServer,
  waitFor,
} from '../helpers.ts';
import { tempDir } from '../invoices/fixtures.ts';
import { startWireCounter } from '../db/wire-counter.ts';
import { boundaryScene, PAST_BOUNDARY } from './fixtures.ts';

/** Two batches on each side of the run (a batch is 100), with two workers. */
const SUBSCRIPTIONS = 200;
/** Statements per invoice, at most. */
const CEILING = 11;

const url = await createTestDatabase();
const wire = await startWireCounter(url);
after(() => wire.close());
const direct = directUrl(url);
const server = await startTestServer(
  wire.url,
  {
    databaseDirectUrl: direct,
    databasePreparedStatements: direct === url,
    // Nothing but the advance talks to the database while it is counted: no mail or render
    // worker, no periodic jobs.
    runWorker: false,
    dataDir: await tempDir(),
  },
  undefined,
  // A clock that stands still: the key, cached, is not looked up again during the count.
  drivenClock(),
);
// The test watches the clock beside the counter, on a pool of its own.
const watcher = createPool(direct, 1);
after(() => watcher.end());
const key = await createTenantWithKey(server.db);
const api = client(server.url, key.secret);

describe('the billing run’s statements', () => {
  it(`makes and issues each invoice of a boundary in at most ${CEILING} statements`, async (t) => {
    const { clockId } = await boundaryScene(api, SUBSCRIPTIONS);
    assert.equal(wire.pending(), 0, 'the wire is quiet before the advance');
    wire.reset();
    const advanced = await api.post(`/v1/test-clocks/${clockId}/advance`, {
      frozenTime: PAST_BOUNDARY,
    });
    assert.equal(advanced.status, 202, advanced.text);
    await waitFor(
      async () => {
        const { rows } = await watcher.query<{ status: string }>(
          'SELECT status FROM test_clocks WHERE tenant_id = $1 AND id = $2',
          [key.tenantId, clockId],
        );
        return rows[0]?.status === 'ready';
      },
      'the clock to be ready',
      120_000,
    );
    const counted = wire.totals();
    const sent = wire.statements();

    const { rows } = await watcher.query<{ issued: number; queued: number }>(
      `SELECT count(*) FILTER (WHERE status = 'open')::int AS issued,
              count(*) FILTER (WHERE email_status = 'queued')::int AS queued
         FROM invoices WHERE tenant_id = $1 AND billing_reason = 'subscription_cycle'`,
      [key.tenantId],
    );
    assert.deepEqual(rows[0], { issued: SUBSCRIPTIONS, queued: SUBSCRIPTIONS / 2 });
    // Each subscription in its event is the subscription as the API shows it, read again.
    const events = await watcher.query<{ data: { object: { id: string } } }>(
      `SELECT data FROM events WHERE tenant_id = $1 AND type = 'subscription.updated'`,
      [key.tenantId],
    );
    assert.equal(events.rows.length, SUBSCRIPTIONS);
    for (const { data } of events.rows) {
      const read = await api.get(`/v1/subscriptions/${data.object.id}`);
      assert.deepEqual(data.object, read.body);
    }

    const perInvoice = counted.statements / SUBSCRIPTIONS;
    const byText = new Map<string, number>();
    for (const text of sent) {
      const head = text.slice(0, 110);
      byText.set(head, (byText.get(head) ?? 0) + 1);
    }
    const profile = [...byText]
      .sort((a, b) => b[1] - a[1])
      .map(([text, n]) => `  ${(n / SUBSCRIPTIONS).toFixed(2).padStart(6)}  ${text}`)
      .join('\n');
    t.diagnostic(
      `${counted.statements} statements in ${counted.roundTrips} round trips for ` +
        `${SUBSCRIPTIONS} invoices: ${perInvoice.toFixed(2)} statements per invoice`,
    );
    assert.ok(
      perInvoice <= CEILING,
      `${perInvoice.toFixed(2)} statements per invoice, at most ${CEILING}; per invoice:\n${profile}`,
    );
    console.log(`statements per invoice, by statement:\n${profile}`);
  });
});
