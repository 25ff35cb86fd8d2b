// Crash scenario: the server process dies (SIGKILL) again and again under a write load of
// invoice creations, and of payments (an invoice issued, paid in part, the payment voided
// every other time), whose clients retry with the same Idempotency-Key until they get an
// answer. The contract promises that the idempotency record and the effect commit together,
// so at the end: every key has exactly one invoice or payment, every reply a client accepted
// is what is stored (and what a replay returns), no object exists without its event, and
// every invoice's amountPaid is the sum of its payments that are not void.
import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../src/db/pool.ts';
import { createScratchDatabase, freePort, tenantKey, type ScenarioKey } from './databases.ts';
import { Tally, type Figures } from './figures.ts';
import { waitUntil } from '../helpers.ts';
import { killChild, request, sleep, startChildServer, type ChildServer } from './processes.ts';

export interface CrashOptions {
  /** Concurrent clients, each creating invoices one after the other. */
  clients: number;
  /** Concurrent clients, each issuing an invoice, paying it in part, voiding the payment. */
  payers?: number;
  /** How many times the server is killed and restarted. */
  kills: number;
  /** Load between two kills, in ms (a random time in this range). */
  runMs: [number, number];
}

interface Accepted {
  key: ScenarioKey;
  body: Record<string, unknown>;
  reply: { id: string } & Record<string, unknown>;
}

/** A payment a client saw recorded, and what its void answered, if it voided it. */
interface AcceptedPayment extends Accepted {
  path: string;
  voided?: Record<string, unknown>;
}

const random = (min: number, max: number) => min + Math.random() * (max - min);

export async function runCrashScenario(adminUrl: string, options: CrashOptions): Promise<Figures> {
  const tally = new Tally('crash');
  const database = await createScratchDatabase(adminUrl);
  // One port across restarts: the clients keep their URL, as behind a load balancer.
  const port = String(await freePort());
  let server: ChildServer | undefined;
  try {
    server = await startChildServer(database.url, { PORT: port });
    const baseUrl = server.url;
    const tenant = await tenantKey(database.db);
    const keys = [
      tenant,
      await tenantKey(database.db, { environment: 'live', tenantId: tenant.tenantId }),
    ];
    const customers = new Map<ScenarioKey, string>();
    for (const key of keys) {
      const res = await request(baseUrl, 'POST', '/v1/customers', {
        key: key.secret,
        body: { name: 'Crash Test Ltd' },
      });
      if (res.status !== 201) throw new Error(`customer set-up failed: ${res.status} ${res.text}`);
      customers.set(key, res.body.id);
    }

    const attempted = new Map<string, { key: ScenarioKey; body: Record<string, unknown> }>();
    const accepted = new Map<string, Accepted>();
    let stopping = false;
    let inFlight = 0;
    let answered = 0;
    const deadline = Date.now() + 60_000 + options.kills * 20_000;

    /** Sends one write until the server gives an answer (undefined: none before the deadline). */
    const untilAnswered = async (
      idem: string,
      key: ScenarioKey,
      path: string,
      body: Record<string, unknown>,
      expected: number,
    ): Promise<Record<string, any> | undefined> => {
      for (let attempt = 0; ; attempt++) {
        if (Date.now() > deadline) {
          tally.fail(`${idem}: no answer before the deadline`);
          return undefined;
        }
        if (attempt > 0) {
          tally.add('retries');
          await sleep(random(30, 120)); // real time: a client's back-off against a real process
        }
        inFlight++;
        try {
          const res = await request(baseUrl, 'POST', path, {
            key: key.secret,
            body,
            headers: { 'idempotency-key': idem },
            timeoutMs: 20_000,
          });
          // The server is starting or the first attempt still holds the key: retry.
          if (res.status === 503 || res.body?.error?.code === 'idempotency_key_in_use') continue;
          if (res.status === expected) {
            answered++;
            return res.body;
          }
          tally.fail(`${idem}: ${res.status} ${res.text.slice(0, 300)}`);
          return undefined;
        } catch {
          // Refused or reset while the server is down or dying: retry with the same key.
        } finally {
          inFlight--;
        }
      }
    };
    const createUntilAnswered = async (
      idem: string,
      key: ScenarioKey,
      body: Record<string, unknown>,
    ) => {
      const reply = await untilAnswered(idem, key, '/v1/invoices', body, 201);
      if (reply) accepted.set(idem, { key, body, reply: reply as Accepted['reply'] });
    };

    // Payers: their invoices are keyed like the others' (metadata), their payments by their
    // reference, which is the payment's Idempotency-Key.
    const payerInvoices = new Set<string>();
    const payments = new Map<string, AcceptedPayment>();
    const payer = async (c: number) => {
      for (let n = 0; !stopping; n++) {
        const idem = `payer-${c}-${n}`;
        const key = keys[n % keys.length]!;
        payerInvoices.add(idem);
        const invoice = await untilAnswered(
          idem,
          key,
          '/v1/invoices',
          {
            customerId: customers.get(key)!,
            currency: 'eur',
            lines: [{ description: `Item ${idem}`, unitAmount: 1000 }],
            metadata: { idempotencyKey: idem },
          },
          201,
        );
        if (!invoice) return;
        if (
          !(await untilAnswered(`${idem}-issue`, key, `/v1/invoices/${invoice.id}/issue`, {}, 200))
        )
          return;
        const path = `/v1/invoices/${invoice.id}/payments`;
        const body = { amount: 100 + (n % 7), method: 'bank_transfer', reference: `${idem}-pay` };
        const reply = await untilAnswered(`${idem}-pay`, key, path, body, 201);
        if (!reply) return;
        const payment: AcceptedPayment = { key, path, body, reply: reply as Accepted['reply'] };
        payments.set(`${idem}-pay`, payment);
        if (n % 2 === 0) {
          payment.voided = await untilAnswered(
            `${idem}-void`,
            key,
            `/v1/payments/${reply.id}/void`,
            {},
            200,
          );
        }
      }
    };

    const client = async (c: number) => {
      for (let n = 0; !stopping; n++) {
        const idem = `crash-${c}-${n}`;
        const key = keys[n % keys.length]!;
        const body = {
          customerId: customers.get(key)!,
          currency: 'eur',
          lines: [
            { description: `Item ${idem}`, quantity: 1 + (n % 5), unitAmount: 100 * (c + 1) },
          ],
          metadata: { idempotencyKey: idem },
        };
        attempted.set(idem, { key, body });
        await createUntilAnswered(idem, key, body);
      }
    };
    const load = [
      ...Array.from({ length: options.clients }, (_, c) => client(c)),
      ...Array.from({ length: options.payers ?? 0 }, (_, c) => payer(c)),
    ];

    /**
     * Load between two kills: a random time, and at least one answered write per client since
     * the server started, so that a slow start (a loaded machine) cannot leave a window empty.
     */
    const runWindow = async () => {
      const since = answered;
      // Real time: the kill comes at a random moment of the load, as a crash would.
      await sleep(random(...options.runMs));
      const clients = options.clients + (options.payers ?? 0);
      if (!(await waitUntil(() => answered - since >= clients, 30_000, 20)))
        tally.fail(`${answered - since} writes answered in 30 s after a start`);
    };
    for (let k = 0; k < options.kills; k++) {
      await runWindow();
      tally.add('inFlightAtKills', inFlight);
      await killChild(server, 'SIGKILL');
      tally.add('kills');
      server = await startChildServer(database.url, { PORT: port });
    }
    await runWindow();
    stopping = true;
    await Promise.all(load);

    await verify(tally, database.db, baseUrl, attempted, accepted, payerInvoices);
    await verifyPayments(tally, database.db, baseUrl, payments);
    tally.note('payments', payments.size);
  } finally {
    if (server) await killChild(server, 'SIGKILL');
    await database.drop();
  }
  return tally.figures();
}

async function verify(
  tally: Tally,
  db: Db,
  baseUrl: string,
  attempted: Map<string, { key: ScenarioKey; body: Record<string, unknown> }>,
  accepted: Map<string, Accepted>,
  /** The keys of the payers' invoices: one invoice each, compared no further. */
  payerInvoices: Set<string>,
): Promise<void> {
  // One case per creation: everything below is checked for each of them.
  tally.count(attempted.size);

  // Exactly one invoice per key, and none without a key.
  const { rows: perKey } = await db.query<{ key: string | null; n: number }>(
    `SELECT metadata->>'idempotencyKey' AS key, count(*)::int AS n FROM invoices GROUP BY 1`,
  );
  const stored = new Map(perKey.map((r) => [r.key, r.n]));
  for (const idem of attempted.keys()) {
    tally.expect(stored.get(idem) === 1, () => `${idem}: ${stored.get(idem) ?? 0} invoices`);
  }
  for (const idem of payerInvoices) {
    tally.expect(stored.get(idem) === 1, () => `${idem}: ${stored.get(idem) ?? 0} invoices`);
  }
  for (const [idem, n] of stored) {
    if (idem === null || (!attempted.has(idem) && !payerInvoices.has(idem)))
      tally.fail(`${n} invoices with unknown key ${idem}`);
  }

  // No object without its creation event, no creation event without its object, none twice.
  const { rows: orphans } = await db.query<{ problem: string; id: string }>(
    `SELECT 'invoice without invoice.created' AS problem, i.id FROM invoices i
      WHERE (SELECT count(*) FROM events e WHERE e.tenant_id = i.tenant_id
               AND e.environment = i.environment AND e.object_id = i.id
               AND e.type = 'invoice.created') <> 1
     UNION ALL
     SELECT 'customer without customer.created', c.id FROM customers c
      WHERE (SELECT count(*) FROM events e WHERE e.tenant_id = c.tenant_id
               AND e.environment = c.environment AND e.object_id = c.id
               AND e.type = 'customer.created') <> 1
     UNION ALL
     SELECT 'event without its object', e.object_id FROM events e
      WHERE e.type LIKE 'invoice.%' AND NOT EXISTS (SELECT 1 FROM invoices i
              WHERE i.tenant_id = e.tenant_id AND i.environment = e.environment AND i.id = e.object_id)`,
  );
  for (const o of orphans) tally.fail(`${o.problem}: ${o.id}`);

  // Every accepted reply is the stored invoice, its creation event and its replay.
  const { rows: events } = await db.query<{ object_id: string; object: unknown }>(
    `SELECT object_id, data->'object' AS object FROM events WHERE type = 'invoice.created'`,
  );
  const eventObject = new Map(events.map((e) => [e.object_id, e.object]));
  const entries = [...accepted];
  const worker = async () => {
    for (let next = entries.pop(); next; next = entries.pop()) {
      const [idem, { key, body, reply }] = next;
      const got = await request(baseUrl, 'GET', `/v1/invoices/${reply.id}`, { key: key.secret });
      tally.expect(
        got.status === 200 && isDeepStrictEqual(got.body, reply),
        () =>
          `${idem}: stored ${got.text.slice(0, 300)} ≠ accepted ${JSON.stringify(reply).slice(0, 300)}`,
      );
      tally.expect(
        isDeepStrictEqual(eventObject.get(reply.id), reply),
        () => `${idem}: event differs from the reply`,
      );
      const replay = await request(baseUrl, 'POST', '/v1/invoices', {
        key: key.secret,
        body,
        headers: { 'idempotency-key': idem },
      });
      tally.expect(
        replay.status === 201 &&
          replay.headers.get('idempotent-replayed') === 'true' &&
          isDeepStrictEqual(replay.body, reply),
        () => `${idem}: replay ${replay.status} ${replay.text.slice(0, 300)}`,
      );
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
}

async function verifyPayments(
  tally: Tally,
  db: Db,
  baseUrl: string,
  payments: Map<string, AcceptedPayment>,
): Promise<void> {
  tally.count(payments.size);
  // Exactly one payment per key (its reference), each with its events, once.
  const { rows } = await db.query<{
    reference: string;
    n: number;
    created: number;
    voided: number;
  }>(
    `SELECT p.reference, count(*)::int AS n,
            sum((SELECT count(*) FROM events e WHERE e.tenant_id = p.tenant_id
                    AND e.object_id = p.id AND e.type = 'payment.created'))::int AS created,
            sum((SELECT count(*) FROM events e WHERE e.tenant_id = p.tenant_id
                    AND e.object_id = p.id AND e.type = 'payment.voided'))::int AS voided
       FROM payments p GROUP BY p.reference`,
  );
  const byReference = new Map(rows.map((r) => [r.reference, r]));
  for (const [idem, payment] of payments) {
    const row = byReference.get(idem);
    tally.expect(row?.n === 1, () => `${idem}: ${row?.n ?? 0} payments`);
    tally.expect(row?.created === 1, () => `${idem}: ${row?.created} payment.created events`);
    const voids = payment.voided ? 1 : 0;
    tally.expect(row?.voided === voids, () => `${idem}: ${row?.voided} payment.voided events`);
  }
  // Every invoice's amountPaid is the sum of its payments that are not void.
  const { rows: unequal } = await db.query<{ id: string }>(
    `SELECT i.id FROM invoices i
      WHERE i.amount_paid <> (SELECT coalesce(sum(p.amount), 0) FROM payments p
                               WHERE p.tenant_id = i.tenant_id AND p.environment = i.environment
                                 AND p.invoice_id = i.id AND p.status = 'succeeded')`,
  );
  for (const { id } of unequal) tally.fail(`${id}: amount_paid is not the sum of its payments`);

  // What the client accepted is what is stored, and what a replay returns.
  const entries = [...payments];
  const worker = async () => {
    for (let next = entries.pop(); next; next = entries.pop()) {
      const [idem, { key, path, body, reply, voided }] = next;
      const got = await request(baseUrl, 'GET', `/v1/payments/${reply.id}`, { key: key.secret });
      // The answer adds the invoice's state after the payment to the payment as stored.
      const { invoice: _state, ...recorded } = reply;
      tally.expect(
        got.status === 200 && isDeepStrictEqual(got.body, voided ?? recorded),
        () => `${idem}: stored ${got.text.slice(0, 300)} ≠ accepted`,
      );
      const replay = await request(baseUrl, 'POST', path, {
        key: key.secret,
        body,
        headers: { 'idempotency-key': idem },
      });
      tally.expect(
        replay.status === 201 &&
          replay.headers.get('idempotent-replayed') === 'true' &&
          isDeepStrictEqual(replay.body, reply),
        () => `${idem}: replay ${replay.status} ${replay.text.slice(0, 300)}`,
      );
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
}
