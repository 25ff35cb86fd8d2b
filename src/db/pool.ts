// The connection pool, and the read snapshot that reads which must agree with each other use.
// Writes go through the unit of work (./unit-of-work.ts).
import pg from 'pg';

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

export function createPool(url: string, max = 20): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30000,
    // A statement that hangs (locks, an outage) must not hang the request forever.
    statement_timeout: 15000,
    application_name: 'billing-api',
    // Timestamps are sent as UTC text whatever the server's default zone (src/db/text-rows.ts
    // renders them without building a Date on that path).
    options: '-c TimeZone=UTC',
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  // Nor may a client that is checked out (a transaction in flight when the database stops):
  // pg-pool listens for errors only on idle clients, and an unheard 'error' event kills the
  // process. The query in flight fails by itself (→ 503) and the pool drops the dead client
  // on release, so the event needs no handling of its own.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
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
