// Identical reads that queue for a connection share one query.
//
// When every pooled connection is busy, requests wait in the pool's queue. A request that
// wants exactly the read another waiting request already asked for (same tenant, same
// statement, same parameters) joins it instead of queueing a second copy: one query then
// answers both. A read joins only while the query it joins has not yet been sent, so the
// query's snapshot is taken after every joiner arrived, and each sees every write committed
// before it came (read-your-writes holds as for a query of its own). With a connection free,
// the query is sent at once and nothing is shared.
import type { Db, Tx } from './pool.ts';

export class SharedReads {
  private readonly queued = new Map<string, Promise<unknown>>();

  constructor(private readonly db: Db) {}

  /**
   * The result of `read` for `key`, shared with the identical reads queued at the same time.
   * The key must name everything the result depends on (tenant, environment, parameters), and
   * the result is shared as is: callers must not change it.
   */
  run<T>(key: string, read: (client: Tx) => Promise<T>): Promise<T> {
    const queued = this.queued.get(key);
    if (queued !== undefined) return queued as Promise<T>;
    const result = this.connectAndRead(key, read);
    this.queued.set(key, result);
    return result;
  }

  private async connectAndRead<T>(key: string, read: (client: Tx) => Promise<T>): Promise<T> {
    let client: Tx;
    try {
      client = await this.db.connect();
    } finally {
      // Closed before the query is sent: a later arrival starts a query of its own.
      this.queued.delete(key);
    }
    try {
      const result = await read(client);
      client.release();
      return result;
    } catch (error) {
      // A failed connection must not go back to the pool (as pg's own pool.query does).
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  }
}
