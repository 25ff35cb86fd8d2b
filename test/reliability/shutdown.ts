// Graceful shutdown scenario: SIGTERM reaches the server while many requests are in flight.
// Table locks held by this scenario keep writes, reads and PDF renderings waiting in the
// database, so every one of them is provably in flight (seen waiting in pg_stat_activity) when
// the signal arrives. The server must stop accepting, finish each of them with a complete
// response once the locks go, and exit 0.
import pg from 'pg';
import type { Db } from '../../src/db/pool.ts';
import { createScratchDatabase, tenantKey, waitForLockWaiters } from './databases.ts';
import { envelopeProblem } from './envelope.ts';
import { Tally, type Figures } from './figures.ts';
import {
  killChild,
  request,
  sleep,
  startChildServer,
  within,
  type ChildServer,
  type Reply,
} from './processes.ts';

export interface ShutdownOptions {
  /** Server processes stopped one after the other. */
  rounds: number;
  /** Writes and reads waiting on the lock at SIGTERM. */
  blocked: number;
  /** PDF renderings waiting beside them (blocked + pdfs ≤ 18: the pool's 20 connections (DATABASE_POOL_SIZE in processes.ts), less
   * the key verifier's and one spare, so that every request is seen waiting). */
  pdfs: number;
  /** How long the lock is held after SIGTERM, in ms. */
  holdMs: number;
}

export async function runShutdownScenario(
  adminUrl: string,
  options: ShutdownOptions,
): Promise<Figures> {
  const tally = new Tally('shutdown');
  const database = await createScratchDatabase(adminUrl);
  let server: ChildServer | undefined;
  try {
    const key = await tenantKey(database.db);
    for (let round = 0; round < options.rounds; round++) {
      // Every PDF must wait in the database, seen there, rather than in the tenant's turn for
      // expensive requests (src/http/expensive-requests.ts), which would hold all but two.
      const turns = String(Math.max(2, options.pdfs));
      server = await startChildServer(database.url, {
        EXPENSIVE_PER_TENANT: turns,
        EXPENSIVE_TOTAL: turns,
      });
      await shutdownRound(tally, database.db, database.url, server, key.secret, options, round);
    }
  } finally {
    if (server) await killChild(server, 'SIGKILL');
    await database.drop();
  }
  tally.note('rounds', options.rounds);
  return tally.figures();
}

async function shutdownRound(
  tally: Tally,
  db: Db,
  databaseUrl: string,
  server: ChildServer,
  key: string,
  options: ShutdownOptions,
  round: number,
): Promise<void> {
  const url = server.url;
  const customer = await request(url, 'POST', '/v1/customers', {
    key,
    body: { name: `Round ${round}` },
  });
  const invoice = await request(url, 'POST', '/v1/invoices', {
    key,
    body: {
      customerId: customer.body.id,
      currency: 'eur',
      lines: Array.from({ length: 40 }, (_, i) => ({
        description: `Line ${i}`,
        unitAmount: 1000 + i,
      })),
    },
  });
  if (invoice.status !== 201) throw new Error(`set-up failed: ${invoice.text}`);

  const blocker = new pg.Client({ connectionString: databaseUrl });
  blocker.on('error', () => undefined);
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE customers, invoices IN ACCESS EXCLUSIVE MODE');
  // The key is in the verifier's cache: authentication needs no connection meanwhile.
  await request(url, 'GET', '/v1/auth/whoami', { key });

  type Sent = { what: string; expect: number; reply: Promise<Reply | Error> };
  const sent: Sent[] = [];
  const send = (what: string, expect: number, method: string, path: string, body?: unknown) =>
    sent.push({
      what,
      expect,
      reply: request(url, method, path, { key, body, timeoutMs: 30_000 }).catch((e: Error) => e),
    });
  for (let i = 0; i < options.blocked; i++) {
    if (i % 3 === 0)
      send(`PATCH customer #${i}`, 200, 'PATCH', `/v1/customers/${customer.body.id}`, {
        description: `Patch ${i}`,
      });
    else if (i % 3 === 1)
      send(`POST customer #${i}`, 201, 'POST', '/v1/customers', { name: `Customer ${i}` });
    // Each list differs (identical ones queued together would share one query and one wait).
    else send(`GET customers #${i}`, 200, 'GET', `/v1/customers?limit=${10 + i}`);
  }
  for (let i = 0; i < options.pdfs; i++)
    send(`PDF #${i}`, 200, 'GET', `/v1/invoices/${invoice.body.id}/pdf`);

  // In flight for sure: every one of them waits for the lock in the database.
  const waiting = await waitForLockWaiters(db, sent.length);
  tally.expect(waiting === sent.length, () => `only ${waiting} of ${sent.length} requests waited`);
  tally.max('inFlightAtSigterm', waiting);
  const signalled = Date.now();
  server.child.kill('SIGTERM');
  // Real time: the process must not exit while its requests are held (an absence, which only
  // waiting shows).
  await sleep(Math.min(300, options.holdMs));
  tally.expect(server.child.exitCode === null, () => 'the server exited with requests in flight');
  // Stopped accepting: a new connection is refused (or answered 503 while closing).
  const late = await request(url, 'GET', '/healthz', { timeoutMs: 5000 }).catch((e: Error) => e);
  tally.expect(
    late instanceof Error || (late.status === 503 && envelopeProblem(late) === null),
    () => `a new request after SIGTERM got ${(late as Reply).status} ${(late as Reply).text}`,
  );
  // Real time: the requests stay held this long into the shutdown, which must wait for them.
  await sleep(Math.max(0, options.holdMs - (Date.now() - signalled)));
  await blocker.query('COMMIT');
  await blocker.end();

  for (const { what, expect, reply } of sent) {
    tally.count();
    const got = await reply;
    if (got instanceof Error) {
      tally.fail(`${what}: no complete response (${String(got.cause ?? got)})`);
      continue;
    }
    const problem = envelopeProblem(got);
    if (problem) tally.fail(`${what}: ${problem}`);
    else if (got.status !== expect) tally.fail(`${what}: ${got.status} ${got.text.slice(0, 200)}`);
    else if (what.startsWith('PDF')) {
      tally.expect(/^%PDF-[\s\S]*%%EOF\s*$/.test(got.text), () => `${what}: an incomplete PDF`);
    } else
      tally.expect(
        typeof got.body?.object === 'string' || Array.isArray(got.body?.data),
        () => `${what}: ${got.text.slice(0, 200)}`,
      );
  }
  const exit = await within(server.exited, 30_000);
  tally.expect(
    exit?.code === 0,
    () =>
      `exit after SIGTERM: ${exit ? (exit.code ?? exit.signal) : 'none within 30 s'}\n${server.output().slice(-2000)}`,
  );
  tally.max('exitMsAfterSigterm', Date.now() - signalled);
}
