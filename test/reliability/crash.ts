// Crash scenario: the server process dies (SIGKILL) again and again under a write load of
// invoice creations whose clients retry with the same Idempotency-Key until they get an
// answer. The contract promises that the idempotency record and the effect commit together,
// so at the end: every key has exactly one invoice, every reply a client accepted is what is
// stored (and what a replay returns), and no object exists without its event.
import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../src/db/pool.ts';
import { createScratchDatabase, freePort, tenantKey, type ScenarioKey } from './databases.ts';
import { Tally, type Figures } from './figures.ts';
import { killChild, request, sleep, startChildServer, type ChildServer } from './processes.ts';

export interface CrashOptions {
  /** Concurrent clients, each creating invoices one after the other. */
  clients: number;
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
    const deadline = Date.now() + 60_000 + options.kills * 20_000;

    /** Sends one creation until the server gives an answer the client accepts. */
    const createUntilAnswered = async (
      idem: string,
      key: ScenarioKey,
      body: Record<string, unknown>,
    ) => {
      for (let attempt = 0; ; attempt++) {
        if (Date.now() > deadline) {
          tally.fail(`${idem}: no answer before the deadline`);
          return;
        }
        if (attempt > 0) {
          tally.add('retries');
          await sleep(random(30, 120));
        }
        inFlight++;
        try {
          const res = await request(baseUrl, 'POST', '/v1/invoices', {
            key: key.secret,
            body,
            headers: { 'idempotency-key': idem },
            timeoutMs: 20_000,
          });
          // The server is starting or the first attempt still holds the key: retry.
          if (res.status === 503 || res.body?.error?.code === 'idempotency_key_in_use') continue;
          if (res.status === 201) accepted.set(idem, { key, body, reply: res.body });
          else tally.fail(`${idem}: ${res.status} ${res.text.slice(0, 300)}`);
          return;
        } catch {
          // Refused or reset while the server is down or dying: retry with the same key.
        } finally {
          inFlight--;
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
    const load = Array.from({ length: options.clients }, (_, c) => client(c));

    for (let k = 0; k < options.kills; k++) {
      await sleep(random(...options.runMs));
      tally.add('inFlightAtKills', inFlight);
      await killChild(server, 'SIGKILL');
      tally.add('kills');
      server = await startChildServer(database.url, { PORT: port });
    }
    await sleep(random(...options.runMs));
    stopping = true;
    await Promise.all(load);

    await verify(tally, database.db, baseUrl, attempted, accepted);
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
  for (const [idem, n] of stored) {
    if (idem === null || !attempted.has(idem)) tally.fail(`${n} invoices with unknown key ${idem}`);
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
