// Creating a draft invoice is a write of a batch (src/http/write-batch.ts): the drafts planned
// meanwhile, their lines, events, webhook deliveries and stored Idempotency-Key results are
// written by one statement, each draft with its own all or nothing. These tests hold it to the
// general path's answers:
// what it writes reads back identically, a key it cannot claim writes nothing, and every
// unusual case (a key in flight, a result stored, fresh or expired, a missing customer) gets
// the answer the transaction would give.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { updateCustomer } from '../../src/customers/service.ts';
import { selectEndpoint } from '../../src/events/endpoint-store.ts';
import { toApiError } from '../../src/http/error-handler.ts';
import type { Tx } from '../../src/db/pool.ts';
import type { ClaimedKey } from '../../src/http/write-batch.ts';
import { planInvoiceCreation } from '../../src/invoices/service.ts';
import { client } from '../helpers.ts';
import { type Api, assertError, createCustomer, startInvoiceApp, tenantApi } from './fixtures.ts';

const app = await startInvoiceApp({ webhooksAllowLoopback: true });
const other = await app.start();
const db = app.db;

const LINES = [
  { description: 'Consulting', quantity: 3, unitAmount: 12_000 },
  { description: 'Travel', quantity: 1, unitAmount: 4_550 },
];

async function counts(tenantId: string) {
  const { rows } = await db.query(
    `SELECT (SELECT count(*)::int FROM invoices WHERE tenant_id = $1) AS invoices,
            (SELECT count(*)::int FROM invoice_lines WHERE tenant_id = $1) AS lines,
            (SELECT count(*)::int FROM events WHERE tenant_id = $1 AND type = 'invoice.created')
              AS events,
            (SELECT count(*)::int FROM webhook_deliveries WHERE tenant_id = $1) AS deliveries,
            (SELECT count(*)::int FROM idempotency_keys WHERE tenant_id = $1) AS keys`,
    [tenantId],
  );
  return rows[0] as Record<string, number>;
}

/** The counts of a tenant of which nothing was written. */
const NOTHING = { invoices: 0, lines: 0, events: 0, deliveries: 0, keys: 0 };

/** The advisory lock sendWrite takes for a key in flight, held by another session. */
async function holdKey(tenantId: string, key: string) {
  const session = new pg.Client({ connectionString: app.databaseUrl });
  await session.connect();
  await session.query('BEGIN');
  await session.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `idem\n${tenantId}\ntest\n${key}`,
  ]);
  return async () => {
    await session.query('COMMIT');
    await session.end();
  };
}

/** A webhook endpoint of the tenant that receives invoice.created (a delivery per draft). */
async function invoiceEndpoint(api: Api): Promise<{ id: string }> {
  const endpoint = await api.post('/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hooks',
    enabledEvents: ['invoice.created'],
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  return endpoint.body;
}

/** Creates a draft while `hold` keeps its locks in an open transaction: it must not wait. */
async function createWhileHeld(
  api: Api,
  customerId: string,
  hold: (tx: Tx) => Promise<unknown>,
  heldBy: string,
): Promise<void> {
  const tx = await db.connect();
  try {
    await tx.query('BEGIN');
    await hold(tx);
    const created = await Promise.race([
      api.post('/v1/invoices', { customerId, currency: 'eur', lines: LINES }),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`held up by ${heldBy}`)), 5000).unref(),
      ),
    ]);
    assert.equal(created.status, 201, created.text);
    await tx.query('COMMIT');
  } finally {
    tx.release();
  }
}

describe('creating an invoice in a batch', () => {
  it('writes exactly what it answers: the invoice, its event and delivery, the stored result', async () => {
    const { api, key } = await tenantApi(app);
    const customer = await createCustomer(api);
    await invoiceEndpoint(api);
    const body = {
      customerId: customer.id,
      currency: 'eur',
      memo: 'Thanks',
      daysUntilDue: 30,
      // Keys jsonb orders otherwise: the answer must read as every later read does.
      metadata: { zz: '1', order: 'A-1', batch: '7', a: '2', é: '3', b: '4' },
      lines: LINES,
    };
    const created = await api.post('/v1/invoices', body, { 'idempotency-key': 'one' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.total, 40_550);

    const read = await api.get(`/v1/invoices/${created.body.id}`);
    assert.deepEqual(read.body, created.body, 'the answer is the row as stored');
    assert.equal(JSON.stringify(read.body), created.text, 'byte for byte, key order included');
    const listed = await api.get('/v1/invoices?limit=1');
    assert.deepEqual(listed.body.data[0], created.body);
    const events = await api.get('/v1/events?limit=10');
    const event = events.body.data.find((e: any) => e.type === 'invoice.created');
    assert.deepEqual(event.data.object, created.body);
    const stored = await db.query(
      'SELECT status_code, response_body FROM idempotency_keys WHERE tenant_id = $1',
      [key.tenantId],
    );
    assert.deepEqual(stored.rows, [{ status_code: 201, response_body: created.text }]);

    const replayed = await api.post('/v1/invoices', body, { 'idempotency-key': 'one' });
    assert.equal(replayed.status, 201);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.equal(replayed.text, created.text);
    const reused = await api.post(
      '/v1/invoices',
      { ...body, memo: 'Other' },
      { 'idempotency-key': 'one' },
    );
    assertError(reused, 422, 'idempotency_key_reused');
    const withoutKey = await api.post('/v1/invoices', body);
    assert.equal(withoutKey.status, 201);
    assert.deepEqual((await api.get(`/v1/invoices/${withoutKey.body.id}`)).body, withoutKey.body);
    assert.deepEqual(await counts(key.tenantId), {
      invoices: 2,
      lines: 4,
      events: 2,
      deliveries: 2,
      keys: 1,
    });
  });

  it('prices a taxed draft with its customer read first (tax exemption)', async () => {
    const { api } = await tenantApi(app);
    const exempt = await createCustomer(api, { taxExempt: 'exempt' });
    const rate = await api.post('/v1/tax-rates', {
      displayName: 'VAT',
      percentage: 20,
      inclusive: false,
    });
    assert.equal(rate.status, 201, rate.text);
    const created = await api.post(
      '/v1/invoices',
      { customerId: exempt.id, currency: 'eur', defaultTaxRates: [rate.body.id], lines: LINES },
      { 'idempotency-key': 'taxed' },
    );
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.tax, 0);
    assert.equal(created.body.total, 40_550);
    assert.deepEqual((await api.get(`/v1/invoices/${created.body.id}`)).body, created.body);
  });

  it('answers a missing customer with 404, stored and replayed, and writes nothing', async () => {
    const { api, key } = await tenantApi(app);
    const body = { customerId: 'cus_missing', currency: 'eur', lines: LINES };
    const missing = await api.post('/v1/invoices', body, { 'idempotency-key': 'k404' });
    assertError(missing, 404, 'resource_missing', 'customerId');
    const again = await api.post('/v1/invoices', body, { 'idempotency-key': 'k404' });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.text, missing.text);
    assertError(await api.post('/v1/invoices', body), 404, 'resource_missing', 'customerId');
    assert.deepEqual(await counts(key.tenantId), {
      invoices: 0,
      lines: 0,
      events: 0,
      deliveries: 0,
      keys: 1,
    });
  });

  it('answers every keyed request for a missing customer 404, never 409, under concurrency', async () => {
    // A draft whose customer is missing is not written by its batch, and the general path
    // answers it after the batch committed: it never finds its own key still held (when a
    // failed statement decided this, 5-9% of these requests were answered 409).
    const { api, key } = await tenantApi(app);
    const body = { customerId: 'cus_missing', currency: 'eur', lines: LINES };
    const statuses = new Map<number, number>();
    for (let round = 0; round < 40; round++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          api.post('/v1/invoices', body, { 'idempotency-key': `race-${round}-${i}` }),
        ),
      );
      for (const answer of answers) {
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      }
    }
    assert.deepEqual([...statuses], [[404, 320]]);
    assert.equal((await counts(key.tenantId)).keys, 320);
  });

  it('refuses a key in flight elsewhere with 409 and writes nothing', async () => {
    const { api, key } = await tenantApi(app);
    const customer = await createCustomer(api);
    const body = { customerId: customer.id, currency: 'eur', lines: LINES };
    const release = await holdKey(key.tenantId, 'busy');
    try {
      const busy = await api.post('/v1/invoices', body, { 'idempotency-key': 'busy' });
      assertError(busy, 409, 'idempotency_key_in_use');
      assert.equal((await counts(key.tenantId)).invoices, 0);
    } finally {
      await release();
    }
    const created = await api.post('/v1/invoices', body, { 'idempotency-key': 'busy' });
    assert.equal(created.status, 201, created.text);
  });

  it('does the work again for a key whose stored result expired', async () => {
    const { api, key } = await tenantApi(app);
    const customer = await createCustomer(api);
    const body = { customerId: customer.id, currency: 'eur', lines: LINES };
    const first = await api.post('/v1/invoices', body, { 'idempotency-key': 'old' });
    await db.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE tenant_id = $1`,
      [key.tenantId],
    );
    const second = await api.post('/v1/invoices', body, { 'idempotency-key': 'old' });
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), null);
    assert.notEqual(second.body.id, first.body.id);
    const stored = await db.query(
      'SELECT response_body FROM idempotency_keys WHERE tenant_id = $1',
      [key.tenantId],
    );
    assert.deepEqual(stored.rows, [{ response_body: second.text }]);
  });

  it('is not held up by an update of its customer in flight', async () => {
    const { api, key } = await tenantApi(app);
    const customer = await createCustomer(api);
    const scope = { tenantId: key.tenantId, environment: 'test' as const };
    await createWhileHeld(
      api,
      customer.id,
      (tx) => updateCustomer(tx, scope, customer.id, { name: 'Renamed' }),
      'the customer update',
    );
  });

  it('is not held up by a change of a webhook endpoint in flight', async () => {
    // A batch writes webhook deliveries, whose foreign key must not wait for an endpoint that
    // is being changed (whose new URL may take a DNS lookup to check): else one tenant's
    // endpoint change would hold up every batch that holds one of its drafts.
    const { api, key } = await tenantApi(app);
    const customer = await createCustomer(api);
    const endpoint = await invoiceEndpoint(api);
    const scope = { tenantId: key.tenantId, environment: 'test' as const };
    await createWhileHeld(
      api,
      customer.id,
      async (tx) => assert.ok(await selectEndpoint(tx, scope, endpoint.id, { forUpdate: true })),
      'the endpoint change',
    );
    const { rows } = await db.query(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1',
      [key.tenantId],
    );
    assert.deepEqual(rows, [{ n: 1 }]);
  });

  it('lets 40 concurrent requests with one key over two instances create exactly one invoice', async () => {
    const { api, key } = await tenantApi(app);
    const customer = await createCustomer(api);
    const elsewhere = client(other.url, key.secret);
    const body = { customerId: customer.id, currency: 'eur', lines: LINES };
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? api : elsewhere).post('/v1/invoices', body, {
          'idempotency-key': 'race',
        }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const busy = results.filter((r) => r.status === 409);
    assert.equal(created.length + busy.length, 40, results.map((r) => r.status).join(','));
    assert.equal(new Set(created.map((r) => r.text)).size, 1, 'every success is the same result');
    for (const r of busy) assert.equal(r.body.error.code, 'idempotency_key_in_use');
    const n = await counts(key.tenantId);
    assert.equal(n.invoices, 1);
    assert.equal(n.events, 1);
    assert.equal(n.keys, 1);
  });
});

describe('BatchedStatement', () => {
  const scope = async () => {
    const { api, key } = await tenantApi(app);
    const customer = await createCustomer(api);
    return { scope: { tenantId: key.tenantId, environment: 'test' as const }, customer };
  };
  const claim = (tenantId: string, key: string, body: unknown): ClaimedKey => ({
    tenantId,
    environment: 'test',
    key,
    lock: `idem\n${tenantId}\ntest\n${key}`,
    fingerprint: Buffer.alloc(32),
    status: 201,
    body: JSON.stringify(body),
  });
  const xminOf = async (ids: string[]) =>
    (await db.query('SELECT DISTINCT xmin::text FROM invoices WHERE id = ANY($1)', [ids])).rows;

  it('writes all or nothing: a second claim of the same key writes nothing', async () => {
    const { scope: s, customer } = await scope();
    const input = { customerId: customer.id, currency: 'eur', lines: LINES };
    const a = await planInvoiceCreation(db, s, input);
    assert.equal(await a.statement.run(db, a, claim(s.tenantId, 'k', a.body)), true);
    const b = await planInvoiceCreation(db, s, input);
    assert.equal(await b.statement.run(db, b, claim(s.tenantId, 'k', b.body)), false);
    assert.deepEqual(await counts(s.tenantId), {
      invoices: 1,
      lines: 2,
      events: 1,
      deliveries: 0,
      keys: 1,
    });
  });

  it('writes nothing while the key is in flight, or when the customer is missing', async () => {
    const { scope: s, customer } = await scope();
    const plan = await planInvoiceCreation(db, s, {
      customerId: customer.id,
      currency: 'eur',
      lines: LINES,
    });
    const release = await holdKey(s.tenantId, 'held');
    try {
      assert.equal(await plan.statement.run(db, plan, claim(s.tenantId, 'held', {})), false);
    } finally {
      await release();
    }
    const orphan = await planInvoiceCreation(db, s, {
      customerId: 'cus_gone',
      currency: 'eur',
      lines: LINES,
    });
    assert.equal(await orphan.statement.run(db, orphan, undefined), false);
    assert.equal(await orphan.statement.run(db, orphan, claim(s.tenantId, 'gone', {})), false);
    assert.deepEqual(await counts(s.tenantId), NOTHING);
  });

  it('writes the drafts planned in one turn in one transaction, each on its own terms', async () => {
    const { scope: s, customer } = await scope();
    const input = { customerId: customer.id, currency: 'eur', lines: LINES };
    const plans = await Promise.all(
      Array.from({ length: 6 }, () => planInvoiceCreation(db, s, input)),
    );
    const orphan = await planInvoiceCreation(db, s, { ...input, customerId: 'cus_gone' });
    const done = await Promise.all([
      plans[0]!.statement.run(db, plans[0]!, undefined),
      plans[1]!.statement.run(db, plans[1]!, claim(s.tenantId, 'b1', plans[1]!.body)),
      orphan.statement.run(db, orphan, claim(s.tenantId, 'orphan', orphan.body)),
      plans[2]!.statement.run(db, plans[2]!, claim(s.tenantId, 'b2', plans[2]!.body)),
      // The same key twice in one batch: the first is written, the repeat is left to the
      // general path.
      plans[3]!.statement.run(db, plans[3]!, claim(s.tenantId, 'twice', plans[3]!.body)),
      plans[4]!.statement.run(db, plans[4]!, claim(s.tenantId, 'twice', plans[4]!.body)),
      plans[5]!.statement.run(db, plans[5]!, undefined),
    ]);
    assert.deepEqual(done, [true, true, false, true, true, false, true]);
    const written = [0, 1, 2, 3, 5].map((i) => (plans[i]!.body as { id: string }).id);
    assert.equal((await xminOf(written)).length, 1, 'one transaction wrote them all');
    assert.deepEqual(await counts(s.tenantId), {
      invoices: 5,
      lines: 10,
      events: 5,
      deliveries: 0,
      keys: 3,
    });
    const { rows } = await db.query(
      `SELECT key, response_body FROM idempotency_keys WHERE tenant_id = $1 ORDER BY key`,
      [s.tenantId],
    );
    assert.deepEqual(
      rows.map((r) => [r.key, JSON.parse(r.response_body).id]),
      [
        ['b1', written[1]],
        ['b2', written[2]],
        ['twice', written[3]],
      ],
    );
    const events = await db.query(
      `SELECT object_id FROM events WHERE tenant_id = $1 AND type = 'invoice.created'
        ORDER BY object_id`,
      [s.tenantId],
    );
    assert.deepEqual(
      events.rows.map((r) => r.object_id),
      [...written].sort(),
    );
  });

  it('never writes again a draft whose batch lost its connection: without a key it gets 503', async () => {
    const { scope: s, customer } = await scope();
    const input = { customerId: customer.id, currency: 'eur', lines: LINES };
    const keyed = await planInvoiceCreation(db, s, input);
    const unkeyed = await planInvoiceCreation(db, s, input);
    // The batch waits on the customer's row (the invoice's foreign key) while another session
    // holds it for update; its backend is then terminated, mid-statement.
    const holder = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM customers WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [
        s.tenantId,
        customer.id,
      ]);
      const runs = [
        keyed.statement.run(db, keyed, claim(s.tenantId, 'cut', keyed.body)),
        unkeyed.statement.run(db, unkeyed, undefined),
      ].map((run) =>
        run.then(
          (done) => ({ done }),
          (error: unknown) => ({ error }),
        ),
      );
      let backend: number | undefined;
      for (let i = 0; i < 200 && backend === undefined; i++) {
        const { rows } = await db.query(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND query LIKE 'WITH%request AS%json_to_recordset%'`,
        );
        backend = rows[0]?.pid as number | undefined;
        if (backend === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.ok(backend !== undefined, 'the batch never waited on the customer');
      await db.query('SELECT pg_terminate_backend($1)', [backend]);
      const [keyedOutcome, unkeyedOutcome] = await Promise.all(runs);
      // The keyed write goes to the general path, which settles it by its key.
      assert.deepEqual(keyedOutcome, { done: false });
      // The unkeyed one is not written again: its failure reaches the client as 503.
      assert.ok(unkeyedOutcome && 'error' in unkeyedOutcome, 'an unkeyed write was retried');
      assert.equal(toApiError(unkeyedOutcome.error).status, 503);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    assert.deepEqual(await counts(s.tenantId), NOTHING);
  });

  it('leaves every draft of a failed batch unwritten, and their keys free at once', async () => {
    const { scope: s, customer } = await scope();
    const input = { customerId: customer.id, currency: 'eur', lines: LINES };
    const good = await planInvoiceCreation(db, s, input);
    const bad = await planInvoiceCreation(db, s, input);
    // A draft breaking an invoice invariant (its total is not its subtotal plus tax) fails
    // the whole statement.
    bad.fields.total = 1;
    const done = await Promise.all([
      good.statement.run(db, good, claim(s.tenantId, 'good', good.body)),
      bad.statement.run(db, bad, claim(s.tenantId, 'bad', bad.body)),
    ]);
    assert.deepEqual(done, [false, false]);
    assert.deepEqual(await counts(s.tenantId), NOTHING);
    // The keys' locks went with the failed statement: another session takes them at once.
    const session = new pg.Client({ connectionString: app.databaseUrl });
    await session.connect();
    try {
      const { rows } = await session.query(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS free',
        [claim(s.tenantId, 'good', {}).lock],
      );
      assert.deepEqual(rows, [{ free: true }]);
    } finally {
      await session.end();
    }
    assert.equal(await good.statement.run(db, good, claim(s.tenantId, 'good', good.body)), true);
  });
});
