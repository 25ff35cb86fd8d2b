// The connection pool and the transaction helper every service uses.
import pg from 'pg';
import { discardQueuedEvents, writeQueuedEvents } from '../events/outbox.ts';

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
    // Sent when connecting, where PgBouncer refuses them (and a SET of them would stay on
    // whichever server connection ran it): behind a pooler both are the server's settings for
    // the app's role (docs/scaling.md). A statement that hangs (locks, an outage) must not
    // hang the request forever. Timestamps are sent as UTC text whatever the server's default
    // zone (src/db/text-rows.ts renders them without building a Date on that path, and takes
    // the slow way for any other zone).
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
    if (!preparedStatements) sendStatementsUnnamed(client);
  });
  return pool;
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

export async function inTransaction<T>(
  db: Db,
  work: (tx: Tx) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const tx = await db.connect();
  let broken = false;
  try {
    await tx.query(begin);
    const result = await work(tx);
    await writeQueuedEvents(tx);
    await tx.query('COMMIT');
    return result;
  } catch (error) {
    discardQueuedEvents(tx);
    try {
      await tx.query('ROLLBACK');
    } catch {
      broken = true;
    }
    throw error;
  } finally {
    tx.release(broken);
  }
}

/**
 * Runs reads that must agree with each other (a row and its children read by two statements)
 * in one snapshot: a write that commits between the statements is seen by neither or both.
 * Inside a transaction already (`on` is a client), that transaction's snapshot rules apply.
 */
export async function inSnapshot<T>(on: Db | Tx, work: (tx: Queryable) => Promise<T>): Promise<T> {
  return on instanceof pg.Pool ? inTransaction(on, work, SNAPSHOT) : work(on);
}

const SNAPSHOT = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/**
 * inSnapshot on a connection already checked out and in no transaction (a shared read's).
 * After a failure the transaction is rolled back, and the work's error thrown; should the
 * rollback fail too, its error is thrown instead, and the caller must discard the connection.
 */
export async function snapshotOn<T>(client: Tx, work: (tx: Tx) => Promise<T>): Promise<T> {
  await client.query(SNAPSHOT);
  let result: T;
  try {
    result = await work(client);
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  await client.query('COMMIT');
  return result;
}

/**
 * Runs `work` in the transaction `on` is already in (a client from sendWrite), or in a new one
 * when `on` is the pool (the CLI). One service function then serves both doors.
 */
export async function inTransactionOf<T>(on: Db | Tx, work: (tx: Tx) => Promise<T>): Promise<T> {
  return on instanceof pg.Pool ? inTransaction(on, work) : work(on);
}
