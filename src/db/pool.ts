// The connection pool, and the read snapshot that reads which must agree with each other use.
// Writes go through the unit of work (./unit-of-work.ts).
import { hash } from 'node:crypto';
import type { Socket } from 'node:net';
import pg from 'pg';
import { describeOnce } from './row-shapes.ts';

// bigint columns (counts, money sums) arrive as strings unless told otherwise; money never
// leaves JavaScript's safe integers (checked when written), so parse them as numbers here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${value} exceeds the safe range`);
  return n;
});

export type Db = pg.Pool;
export type Tx = pg.PoolClient;
/** Anything that runs a query: the pool or a client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

export interface PoolOptions {
  /**
   * The URL is a transaction pooler (PgBouncer): it refuses startup parameters it does not
   * know, so none are sent.
   */
  pooler?: boolean;
  /** Named prepared statements; off behind a pooler that cannot keep them (PgBouncer < 1.21). */
  preparedStatements?: boolean;
}

export function createPool(url: string, max = 20, options: PoolOptions = {}): Db {
  const { pooler = false, preparedStatements = true } = options;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30000,
    application_name: 'billing-api',
    // Statements a caller queues without waiting (a transaction's BEGIN and its first
    // statement; its outcome and COMMIT) go out together and share one round trip
    // (src/db/unit-of-work.ts). Each keeps its own Sync, so one failing does not swallow the
    // next; a caller that awaits each statement in turn sees no difference. Measured in
    // docs/scaling.md ("Round trips").
    pipeline: true,
    // Sent when connecting, where PgBouncer refuses them (and a SET of them would stay on
    // whichever server connection ran it): behind a pooler both are the server's settings for
    // the app's role (docs/scaling.md). A statement that hangs (locks, an outage) must not
    // hang the request forever. The session's zone is UTC whatever the server's default, so
    // a timestamp PostgreSQL renders as text reads the same on every server.
    ...(pooler ? {} : { statement_timeout: 15000, options: '-c TimeZone=UTC' }),
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    // Nor may a client that is checked out (a transaction in flight when the database stops):
    // pg-pool listens for errors only on idle clients, and an unheard 'error' event kills the
    // process. The query in flight fails by itself (→ 503) and the pool drops the dead client
    // on release, so the event needs no handling of its own.
    client.on('error', () => undefined);
    if (preparedStatements) prepareOnce(client);
    else sendStatementsUnnamed(client);
    // A prepared statement's columns are asked once (./row-shapes.ts), not behind a pooler.
    if (preparedStatements && !pooler) describeOnce(client);
    sendTogether(client);
  });
  return pool;
}

/**
 * Makes `client` send the statements it is given in one turn of the event loop's microtasks in
 * one write: the socket is corked at the first and uncorked once that turn is over
 * (process.nextTick runs after the microtasks queued with it). A batch's pipelined statements,
 * or a transaction's BEGIN and its first statement, then cost one system call rather than one
 * each; on a loopback TCP connection that call also carries the kernel's delivery to the
 * server, the largest part of what sending a statement costs this process. A caller that
 * awaits each statement in turn sends each at the end of its turn, as before. Measured in
 * docs/scaling.md ("Round trips").
 */
function sendTogether(client: pg.PoolClient): void {
  const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  let corked = false;
  const flush = () => {
    corked = false;
    stream.uncork();
  };
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const together = (...args: unknown[]) => {
    if (!corked) {
      corked = true;
      stream.cork();
      process.nextTick(flush);
    }
    return query(...args);
  };
  client.query = together as typeof client.query;
}

/** Names given to statements by their text (see prepareOnce); at most MAX_NAMED of them. */
const statementNames = new Map<string, string>();
const MAX_NAMED = 4096;

function nameOf(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED) {
    name = `s_${hash('sha256', text, 'base64url').slice(0, 22)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Makes `client` prepare each statement with parameters once per connection: it is given a
 * name derived from its text, so PostgreSQL parses and plans it on first use and afterwards
 * executes its plan (a parameter-dependent plan is still made per execution where PostgreSQL
 * judges the generic one worse: plan_cache_mode auto). Parsing and planning were about a
 * quarter of the server's CPU on the billing run's statements. A statement named by its
 * caller keeps its name. Measured in docs/scaling.md ("Round trips").
 */
function prepareOnce(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const named = (...args: unknown[]) => {
    const [config, values] = args;
    if (typeof config === 'string') {
      if (Array.isArray(values) && values.length > 0) {
        const name = nameOf(config);
        if (name !== undefined) args[0] = { text: config, name };
      }
    } else if (
      typeof config === 'object' &&
      config !== null &&
      !('submit' in config) &&
      'text' in config &&
      typeof config.text === 'string' &&
      (!('name' in config) || config.name === undefined)
    ) {
      const given = 'values' in config ? config.values : values;
      if (Array.isArray(given) && given.length > 0) {
        const name = nameOf(config.text);
        if (name !== undefined) args[0] = { ...config, name };
      }
    }
    return query(...args);
  };
  client.query = named as typeof client.query;
}

/**
 * Makes `client` send every statement unnamed. A named statement is prepared once on the
 * server connection that first ran it; a transaction pooler may run the next use on another,
 * where it does not exist (or exists already, for another client).
 */
function sendStatementsUnnamed(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const unnamed = (...args: unknown[]) => {
    const [config] = args;
    if (typeof config === 'object' && config !== null && 'name' in config && 'text' in config) {
      args[0] = { ...config, name: undefined };
    }
    return query(...args);
  };
  client.query = unnamed as typeof client.query;
}

/**
 * Runs reads that must agree with each other (a row and its children read by two statements)
 * in one snapshot: a write that commits between the statements is seen by neither or both.
 * Inside a transaction already (`on` is a client), that transaction's snapshot rules apply.
 */
export async function inSnapshot<T>(on: Db | Tx, work: (tx: Queryable) => Promise<T>): Promise<T> {
  if (!(on instanceof pg.Pool)) return work(on);
  const client = await on.connect();
  let broken = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
