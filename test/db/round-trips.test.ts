// How many statements each API operation runs, and how many round trips it makes to the
// database, counted on the wire (./wire-counter.ts) between the app's pool and the database
// the run uses (PostgreSQL, or PgBouncer in front of it). A change that adds a statement or a
// round trip to an operation fails here, with the list of what it sent, rather than showing
// up later as a slower benchmark.
//
// The ceilings are what the operations cost when they were last measured: lower one when a
// change saves a statement or a round trip; raise one only with the reason in the commit.
// Counted: what the request sends until its response (an issue's documents are rendered after
// it, src/documents/render-queue.ts), on the warm pool: every statement already prepared, the
// key already verified and cached. Round trips are summed over connections: two statements
// sent in parallel on two connections are two round trips, though the request waits for them
// once; the table printed at the end shows those waits too, but bounds only the two counts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  client,
  createTenantWithKey,
  createTestDatabase,
  directUrl,
  drivenClock,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from '../helpers.ts';
import { tempDir } from '../invoices/fixtures.ts';
import { startWireCounter, type WireCounts } from './wire-counter.ts';

type Cost = { statements: number; roundTrips: number };

/** At most this per operation. */
const CEILINGS: Record<string, Cost> = {
  'GET /v1/auth/whoami': { statements: 0, roundTrips: 0 },
  'GET /v1/customers/:id': { statements: 1, roundTrips: 1 },
  'GET /v1/customers (first page of 25)': { statements: 1, roundTrips: 1 },
  'GET /v1/customers (next page)': { statements: 1, roundTrips: 1 },
  'GET /v1/customers?email=': { statements: 1, roundTrips: 1 },
  'POST /v1/customers (Idempotency-Key)': { statements: 5, roundTrips: 2 },
  'PATCH /v1/customers/:id': { statements: 5, roundTrips: 4 },
  'POST /v1/invoices (3 lines, Idempotency-Key)': { statements: 8, roundTrips: 3 },
  'GET /v1/invoices/:id (draft)': { statements: 1, roundTrips: 1 },
  'GET /v1/invoices (first page of 25)': { statements: 3, roundTrips: 3 },
  'POST /v1/invoices/:id/issue': { statements: 12, roundTrips: 6 },
  'GET /v1/invoices/:id (open)': { statements: 1, roundTrips: 1 },
  'POST /v1/invoices/:id/payments (partial)': { statements: 6, roundTrips: 4 },
  'POST /v1/invoices/:id/pay': { statements: 7, roundTrips: 4 },
  'POST /v1/invoices/:id/void': { statements: 7, roundTrips: 3 },
  'POST /v1/invoices/:id/send': { statements: 8, roundTrips: 5 },
  'GET /v1/invoices/:id/pdf (first read: rendered and stored)': { statements: 9, roundTrips: 7 },
  'GET /v1/invoices/:id/pdf (stored)': { statements: 2, roundTrips: 2 },
  'POST /v1/credit-notes': { statements: 10, roundTrips: 5 },
};

// The database the run would give the server (PgBouncer's URL under npm run test:pgbouncer),
// and the counter in front of it. Migrations and the LISTEN for key changes go to the server
// itself, beside the counter, as they do beside a pooler.
const url = await createTestDatabase();
const wire = await startWireCounter(url);
const direct = directUrl(url);
const clock = drivenClock();
const server: TestServer = await startTestServer(
  wire.url,
  {
    databaseDirectUrl: direct,
    // As the server would prepare them on `url` itself (not behind a pooler: named statements).
    databasePreparedStatements: direct === url,
    // Only requests reach the pool: no webhook or mail worker, no periodic jobs.
    runWorker: false,
    dataDir: await tempDir(),
  },
  undefined,
  // A clock that stands still: the cached key never expires (a second look-up would count),
  // and its last use is written once, in the warm-up (`before` below).
  clock,
);
after(() => wire.close());

const key = await createTenantWithKey(server.db);
const api = client(server.url, key.secret);

/** What one request cost; `after`: what the server sent once it had answered. */
type Measured = WireCounts & { waits: number; sent: string[]; after: number };

/** One operation: `prepare` makes what it needs (not counted) and returns the counted call. */
interface Operation {
  name: string;
  status: number;
  prepare(): Promise<() => Promise<ApiResponse>>;
}

let serial = 0;
const idempotencyKey = () => ({ 'idempotency-key': `round-trips-${++serial}` });

async function created(response: Promise<ApiResponse>, status = 201): Promise<any> {
  const res = await response;
  assert.equal(res.status, status, res.text);
  return res.body;
}

const newCustomer = () =>
  created(api.post('/v1/customers', { name: 'Ada Lovelace', email: 'ada@example.com' }));

let vatId = '';
/** A draft of three lines, 19 % VAT on each. */
const draftBody = (customerId: string) => ({
  customerId,
  currency: 'eur',
  defaultTaxRates: [vatId],
  lines: [
    { description: 'Consulting', unitAmount: 10000, quantity: 3 },
    { description: 'Travel', unitAmount: 2500 },
    { description: 'Licence', unitAmount: 4900, quantity: 2 },
  ],
});
const newDraft = async () => created(api.post('/v1/invoices', draftBody((await newCustomer()).id)));
const newOpenInvoice = async () =>
  created(api.post(`/v1/invoices/${(await newDraft()).id}/issue`), 200);

const OPERATIONS: Operation[] = [
  {
    name: 'GET /v1/auth/whoami',
    status: 200,
    prepare: async () => () => api.get('/v1/auth/whoami'),
  },
  {
    name: 'GET /v1/customers/:id',
    status: 200,
    prepare: async () => {
      const { id } = await newCustomer();
      return () => api.get(`/v1/customers/${id}`);
    },
  },
  {
    name: 'GET /v1/customers (first page of 25)',
    status: 200,
    prepare: async () => () => api.get('/v1/customers?limit=25'),
  },
  {
    name: 'GET /v1/customers (next page)',
    status: 200,
    prepare: async () => {
      const first = await created(api.get('/v1/customers?limit=25'), 200);
      assert.ok(first.nextCursor, 'more than one page of customers');
      const cursor = encodeURIComponent(first.nextCursor);
      return () => api.get(`/v1/customers?limit=25&cursor=${cursor}`);
    },
  },
  {
    name: 'GET /v1/customers?email=',
    status: 200,
    prepare: async () => () => api.get('/v1/customers?email=grace%40example.com'),
  },
  {
    name: 'POST /v1/customers (Idempotency-Key)',
    status: 201,
    prepare: async () => {
      const headers = idempotencyKey();
      const body = { name: 'Grace Hopper', email: 'grace@example.com', metadata: { n: '1' } };
      return () => api.post('/v1/customers', body, headers);
    },
  },
  {
    name: 'PATCH /v1/customers/:id',
    status: 200,
    prepare: async () => {
      const { id } = await newCustomer();
      return () =>
        api.patch(`/v1/customers/${id}`, { name: 'Ada King', phone: '+44 20 7946 0000' });
    },
  },
  {
    name: 'POST /v1/invoices (3 lines, Idempotency-Key)',
    status: 201,
    prepare: async () => {
      const { id } = await newCustomer();
      const headers = idempotencyKey();
      const body = draftBody(id);
      return () => api.post('/v1/invoices', body, headers);
    },
  },
  {
    name: 'GET /v1/invoices/:id (draft)',
    status: 200,
    prepare: async () => {
      const { id } = await newDraft();
      return () => api.get(`/v1/invoices/${id}`);
    },
  },
  {
    name: 'GET /v1/invoices (first page of 25)',
    status: 200,
    prepare: async () => () => api.get('/v1/invoices?limit=25'),
  },
  {
    name: 'POST /v1/invoices/:id/issue',
    status: 200,
    prepare: async () => {
      const { id } = await newDraft();
      return () => api.post(`/v1/invoices/${id}/issue`);
    },
  },
  {
    name: 'GET /v1/invoices/:id (open)',
    status: 200,
    prepare: async () => {
      const { id } = await newOpenInvoice();
      return () => api.get(`/v1/invoices/${id}`);
    },
  },
  {
    name: 'POST /v1/invoices/:id/payments (partial)',
    status: 201,
    prepare: async () => {
      const { id } = await newOpenInvoice();
      const body = { amount: 5000, method: 'bank_transfer' };
      return () => api.post(`/v1/invoices/${id}/payments`, body);
    },
  },
  {
    name: 'POST /v1/invoices/:id/pay',
    status: 200,
    prepare: async () => {
      const { id } = await newOpenInvoice();
      return () => api.post(`/v1/invoices/${id}/pay`);
    },
  },
  {
    name: 'POST /v1/invoices/:id/void',
    status: 200,
    prepare: async () => {
      const { id } = await newOpenInvoice();
      return () => api.post(`/v1/invoices/${id}/void`);
    },
  },
  {
    name: 'POST /v1/invoices/:id/send',
    status: 200,
    prepare: async () => {
      const { id } = await newOpenInvoice();
      return () => api.post(`/v1/invoices/${id}/send`);
    },
  },
  {
    name: 'GET /v1/invoices/:id/pdf (first read: rendered and stored)',
    status: 200,
    prepare: async () => {
      const { id } = await newOpenInvoice();
      return () => api.get(`/v1/invoices/${id}/pdf`);
    },
  },
  {
    name: 'GET /v1/invoices/:id/pdf (stored)',
    status: 200,
    prepare: async () => {
      const { id } = await newOpenInvoice();
      await created(api.get(`/v1/invoices/${id}/pdf`), 200);
      return () => api.get(`/v1/invoices/${id}/pdf`);
    },
  },
  {
    name: 'POST /v1/credit-notes',
    status: 201,
    prepare: async () => {
      const { id } = await newOpenInvoice();
      const body = { invoiceId: id, amount: 5950, reason: 'order_change' };
      return () => api.post('/v1/credit-notes', body);
    },
  },
];

/**
 * Runs `call` and counts what it sent the database until its response. Nothing else talks to
 * the database meanwhile: no worker, the key cached, its last use written, and this test makes
 * one request at a time. What the server still sends after the response (a render stored
 * later, say) is counted up to a second request that needs no database (/healthz) and must
 * be nothing: it would otherwise land in the next operation's count.
 */
async function count(operation: Operation, call: () => Promise<ApiResponse>): Promise<Measured> {
  assert.equal(wire.pending(), 0, 'the wire is quiet before the request');
  wire.reset();
  const res = await call();
  assert.equal(res.status, operation.status, `${operation.name}: ${res.text}`);
  const counted = { ...wire.totals(), waits: wire.waits(), sent: wire.statements() };
  assert.equal(wire.pending(), 0, `${operation.name}: nothing in flight after the response`);
  assert.equal((await api.get('/healthz')).status, 200);
  const later = wire.totals();
  const after = later.statements - counted.statements + later.roundTrips - counted.roundTrips;
  return { ...counted, after };
}

const measured = new Map<string, Measured>();

describe('statements and round trips per operation', () => {
  before(async () => {
    vatId = (
      await created(
        api.post('/v1/tax-rates', { displayName: 'VAT', inclusive: false, percentage: 19 }),
      )
    ).id;
    // More than one page, and the customer the search finds.
    for (let i = 0; i < 30; i++) await newCustomer();
    await created(api.post('/v1/customers', { name: 'Grace Hopper', email: 'grace@example.com' }));
    // Each operation once: its statements are prepared, and the key looked up and cached.
    for (const operation of OPERATIONS) await count(operation, await operation.prepare());
    // The key's last use (this minute, by the clock that stands still) is written now, not by
    // the verifier's timer in the middle of a count.
    await server.verifier.flushLastUsed();
  });

  for (const operation of OPERATIONS) {
    it(`${operation.name}: within its ceiling, the same every time`, async (t) => {
      const first = await count(operation, await operation.prepare());
      const second = await count(operation, await operation.prepare());
      // The same statements (in parallel on two connections, their order may differ).
      assert.deepEqual([...second.sent].sort(), [...first.sent].sort());
      assert.equal(second.roundTrips, first.roundTrips, 'two requests alike, as many round trips');
      assert.equal(first.after + second.after, 0, 'nothing sent after the response');
      measured.set(operation.name, first);
      t.diagnostic(
        `${operation.name}: ${first.statements} statements, ${first.roundTrips} round trips ` +
          `(${first.waits} waits)`,
      );
      const ceiling = CEILINGS[operation.name];
      assert.ok(ceiling, `a ceiling for ${operation.name}`);
      const sent = first.sent.map((text, i) => `  ${i + 1}. ${text.slice(0, 160)}`).join('\n');
      assert.ok(
        first.statements <= ceiling.statements && first.roundTrips <= ceiling.roundTrips,
        `${operation.name}: ${first.statements} statements in ${first.roundTrips} round trips, ` +
          `at most ${ceiling.statements} in ${ceiling.roundTrips}:\n${sent}`,
      );
    });
  }

  after(() => {
    const width = Math.max(...OPERATIONS.map((o) => o.name.length));
    const row = (name: string, ...cells: (string | number)[]) =>
      `${name.padEnd(width)}  ${cells.map((c, i) => String(c).padStart(i === 1 ? 11 : 10)).join('  ')}`;
    console.log(
      [
        row('operation', 'statements', 'round trips', 'waits'),
        ...[...measured].map(([name, c]) => row(name, c.statements, c.roundTrips, c.waits)),
      ].join('\n'),
    );
  });
});
