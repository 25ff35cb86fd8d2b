// Database outage scenario: the PostgreSQL server (one this scenario owns) stops while the
// API is under load, stays down for a while and comes back. Meanwhile every answer must be
// quick: `503 service_unavailable` with Retry-After on every path that needs the database
// (key look-up, writes through sendWrite, reads, /readyz), never a 500 and never a hang, while
// /healthz still says the process is alive. Afterwards the same process serves again, and the
// writes that clients retried with the same Idempotency-Key exist exactly once.
import pg from 'pg';
import {
  createScratchDatabase,
  startOwnedPostgres,
  tenantKey,
  waitForLockWaiters,
  type ScenarioKey,
} from './databases.ts';
import { waitUntil } from '../helpers.ts';
import { envelopeProblem } from './envelope.ts';
import { Tally, type Figures } from './figures.ts';
import {
  killChild,
  request,
  sleep,
  startChildServer,
  type ChildServer,
  type Reply,
} from './processes.ts';

export interface OutageOptions {
  /** Outages in a row (stop, stay down, start). */
  outages: number;
  /** How long each outage lasts, in ms. */
  downMs: number;
  /** Concurrent clients of the load. */
  clients: number;
}

/** Longer than this is a hang: a stopped database refuses connections at once. */
const HANG_MS = 3000;

export async function runOutageScenario(options: OutageOptions): Promise<Figures> {
  const tally = new Tally('outage');
  const postgres = await startOwnedPostgres();
  let server: ChildServer | undefined;
  // The whole server is dropped at the end, so this database needs no drop of its own.
  const database = await createScratchDatabase(postgres.url);
  try {
    const tenant = await tenantKey(database.db);
    const keys: ScenarioKey[] = [];
    for (let i = 0; i < options.outages; i++) {
      // Per outage: one key kept warm in the 1-second key cache, one never used before.
      keys.push(await tenantKey(database.db, { tenantId: tenant.tenantId }));
      keys.push(await tenantKey(database.db, { tenantId: tenant.tenantId }));
    }
    server = await startChildServer(database.url);
    const live = server;
    const baseUrl = live.url;
    const customer = await request(baseUrl, 'POST', '/v1/customers', {
      key: tenant.secret,
      body: { name: 'Outage Ltd' },
    });
    if (customer.status !== 201) throw new Error(`set-up failed: ${customer.text}`);

    let phase: 'up' | 'down' | 'recovering' = 'up';
    /** Checks one answer: the envelope, quick, and during the outage 503 with Retry-After. */
    const judge = (what: string, reply: Reply) => {
      tally.count();
      tally.max('slowestMs', Math.round(reply.ms));
      const problem = envelopeProblem(reply);
      if (problem) return tally.fail(`${what}: ${problem}`);
      if (reply.ms > HANG_MS) tally.fail(`${what}: took ${Math.round(reply.ms)} ms (${phase})`);
      if (reply.status === 503) {
        tally.add('answered503');
        tally.expect(
          reply.headers.get('retry-after') !== null,
          () => `${what}: 503 without Retry-After`,
        );
        tally.expect(
          reply.body?.error?.code === 'service_unavailable',
          () => `${what}: ${reply.text}`,
        );
      } else if (reply.status >= 300) {
        tally.fail(`${what}: ${reply.status} ${reply.text.slice(0, 200)} (${phase})`);
      } else if (phase === 'down') {
        tally.fail(`${what}: ${reply.status} while the database is down`);
      }
    };
    const send = async (
      what: string,
      method: string,
      path: string,
      opts: Parameters<typeof request>[3] = {},
    ) => {
      try {
        const reply = await request(baseUrl, method, path, { timeoutMs: 20_000, ...opts });
        judge(what, reply);
        return reply;
      } catch (error) {
        tally.count();
        tally.fail(`${what}: no answer (${String(error)}) during ${phase}`);
        return undefined;
      }
    };

    // The load: writes retried with the same key until created, and reads, all the time.
    const created = new Map<string, number>();
    /** Writes the load has had created, for waiting on its progress. */
    let writes = 0;
    let stopping = false;
    void live.exited.then(({ code, signal }) => {
      if (stopping) return;
      stopping = true;
      tally.fail(`the server process died (${code ?? signal}):\n${live.output().slice(-3000)}`);
    });
    const client = async (c: number) => {
      for (let n = 0; !stopping;) {
        const idem = `outage-${c}-${n}`;
        const body = { name: `Load ${idem}`, metadata: { idempotencyKey: idem } };
        const reply = await send(`POST /v1/customers ${idem}`, 'POST', '/v1/customers', {
          key: tenant.secret,
          body,
          headers: { 'idempotency-key': idem },
        });
        const done = reply?.status === 201;
        if (done) {
          created.set(idem, (created.get(idem) ?? 0) + 1);
          writes++;
          n++;
          await send('GET /v1/customers', 'GET', '/v1/customers?limit=5', { key: tenant.secret });
          await send('GET /v1/customers/:id', 'GET', `/v1/customers/${customer.body.id}`, {
            key: tenant.secret,
          });
        }
        // Real time, the load's pace: the next write 20 ms after a round, a refused one retried
        // (with the same key) after 100 ms.
        if (!stopping) await sleep(done ? 20 : 100);
      }
    };
    /** Until every client has had another write created: the load runs, and is served. */
    const loadServed = async (what: string) => {
      const before = writes;
      if (!(await waitUntil(() => writes >= before + options.clients, 15_000)))
        tally.fail(`the load had ${writes - before} writes created ${what} in 15 s`);
    };
    const load = Array.from({ length: options.clients }, (_, c) => client(c));

    /** Which door answered: the request log names the key once authentication passed. */
    const answeredAfterAuth = async (reply: Reply | undefined) => {
      const id = reply?.headers.get('request-id');
      if (!id) return undefined;
      // The request log line is written after the reply: wait for it, up to 5 s.
      const line = () => live.requestLog(id);
      return (await waitUntil(line, 5000)) ? line()!.includes('"keyId"') : undefined;
    };

    for (let o = 0; o < options.outages; o++) {
      const inFlight = keys[2 * o]!;
      const cold = keys[2 * o + 1]!;
      await loadServed(o === 0 ? 'at the start' : 'between outages');
      // Requests already past authentication and waiting in the database when it stops meet
      // the outage in the write path (sendWrite) and the read path themselves: a table lock
      // held by this scenario keeps them there.
      const blocker = new pg.Client({ connectionString: database.url });
      blocker.on('error', () => undefined);
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE customers IN ACCESS EXCLUSIVE MODE');
      const write = send('write in flight (sendWrite)', 'POST', '/v1/customers', {
        key: inFlight.secret,
        body: { name: 'During outage' },
        headers: { 'idempotency-key': `outage-probe-${o}` },
      });
      const read = send('read in flight', 'GET', '/v1/customers', { key: inFlight.secret });
      // The load's clients query customers too, so both probes are surely waiting only once
      // every request in flight is: one per client, plus the two probes.
      const inFlightRequests = options.clients + 2;
      if ((await waitForLockWaiters(database.db, inFlightRequests)) < inFlightRequests)
        throw new Error('the probes did not wait');
      await postgres.stop();
      phase = 'down';
      const downSince = Date.now();
      const writeReply = await write;
      const writeAuth = await answeredAfterAuth(writeReply);
      tally.expect(
        writeAuth === true,
        () =>
          `the write probe did not reach sendWrite (${writeReply?.status}, after authentication: ${writeAuth})`,
      );
      const readReply = await read;
      const readAuth = await answeredAfterAuth(readReply);
      tally.expect(
        readAuth === true,
        () =>
          `the read probe did not reach its query (${readReply?.status}, after authentication: ${readAuth})`,
      );
      // A key not in the cache: the look-up itself meets the outage.
      const lookUp = await send('uncached key (auth look-up)', 'GET', '/v1/auth/whoami', {
        key: cold.secret,
      });
      tally.expect(
        (await answeredAfterAuth(lookUp)) === false,
        () => 'the look-up probe passed authentication',
      );
      const ready = await send('/readyz', 'GET', '/readyz');
      tally.expect(
        ready?.status === 503,
        () => `/readyz answered ${ready?.status} while the database is down`,
      );
      phase = 'up'; // /healthz is about the process, which is alive
      const alive = await send('/healthz', 'GET', '/healthz');
      phase = 'down';
      tally.expect(alive?.status === 200, () => `/healthz answered ${alive?.status}`);

      // Real time: the database stays down this long, as an outage would.
      await sleep(Math.max(0, options.downMs - (Date.now() - downSince)));
      phase = 'recovering';
      await postgres.start();
      const upSince = Date.now();
      // Service resumes in the same process: the first success after the restart.
      const serving = async () =>
        (await request(baseUrl, 'GET', '/readyz').catch(() => undefined))?.status === 200;
      if (!(await waitUntil(serving, 15_000))) tally.fail('/readyz did not recover within 15 s');
      tally.max('recoveryMs', Date.now() - upSince);
      const after = await send('POST after recovery', 'POST', '/v1/customers', {
        key: cold.secret,
        body: { name: 'After outage' },
      });
      tally.expect(after?.status === 201, () => `no write after recovery: ${after?.status}`);
      phase = 'up';
    }

    await loadServed('after the last outage');
    stopping = true;
    await Promise.all(load);
    tally.expect(live.child.exitCode === null, () => 'the server process died');
    tally.note('outages', options.outages);

    // Writes retried through the outage exist exactly once.
    const { rows } = await database.db.query<{ key: string; n: number }>(
      `SELECT metadata->>'idempotencyKey' AS key, count(*)::int AS n FROM customers
        WHERE metadata ? 'idempotencyKey' GROUP BY 1`,
    );
    const stored = new Map(rows.map((r) => [r.key, r.n]));
    tally.note('writes', created.size);
    for (const [idem, answers] of created) {
      tally.expect(
        stored.get(idem) === 1 && answers === 1,
        () => `${idem}: ${stored.get(idem)} rows`,
      );
    }
    tally.expect(
      stored.size === created.size,
      () => `${stored.size} rows for ${created.size} writes`,
    );

    // And the process still stops gracefully.
    live.child.kill('SIGTERM');
    const exit = await live.exited;
    tally.expect(exit.code === 0, () => `exit after SIGTERM: ${exit.code ?? exit.signal}`);
  } finally {
    if (server) await killChild(server, 'SIGKILL');
    await database.db.end();
    await postgres.destroy();
  }
  return tally.figures();
}
