// Identical reads share one query, without ever answering from before their arrival.
//
// A request that wants exactly the read another request already asked for (same tenant, same
// statement, same parameters) joins it, as long as that query has not been sent yet: the
// query's snapshot is then taken after every joiner arrived, and each sees every write
// committed before it came (read-your-writes holds as for a query of its own).
//
// A query is sent only once a connection is free and no identical query is still running:
// one in flight per key at a time. The identical reads that arrive meanwhile gather behind it
// and share the next query, sent as soon as the first is answered. So a burst of N identical
// reads costs about two queries instead of N, each reader waits for at most the query in
// flight and its own, and a single reader with nothing in flight is not delayed at all.
import { ApiError } from '../http/errors.ts';
import type { Db, Tx } from './pool.ts';

interface Gathering {
  promise: Promise<unknown>;
}

interface Slot {
  /** The query of this key being run, if any. */
  running: Promise<unknown> | undefined;
  /** The next query of this key, not sent yet: arrivals join it. */
  gathering: Gathering | undefined;
}

export class SharedReads {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly db: Db) {}

  /**
   * The result of `read` for `key`, shared with the identical reads that join it. The key
   * must name everything the result depends on (tenant, environment, parameters), and the
   * result is shared as is: callers must not change it.
   */
  run<T>(key: string, read: (client: Tx) => Promise<T>): Promise<T> {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = { running: undefined, gathering: undefined };
      this.slots.set(key, slot);
    }
    if (slot.gathering !== undefined) return slot.gathering.promise as Promise<T>;
    const gathering: Gathering = { promise: Promise.resolve() };
    gathering.promise = this.sendWhenFree(key, slot, gathering, read);
    slot.gathering = gathering;
    return gathering.promise as Promise<T>;
  }

  private async sendWhenFree<T>(
    key: string,
    slot: Slot,
    gathering: Gathering,
    read: (client: Tx) => Promise<T>,
  ): Promise<T> {
    let query: Promise<T> | undefined;
    try {
      // One query of a key at a time (measured: with two or three, a burst of identical
      // reads made more queries and was served no faster).
      while (slot.running !== undefined) await slot.running.catch(() => undefined);
      const client = await this.db.connect();
      // Sent from here on: later arrivals gather for a query of their own.
      slot.gathering = undefined;
      query = this.readOn(client, read);
      slot.running = query;
      return await query;
    } finally {
      if (slot.gathering === gathering) slot.gathering = undefined;
      if (query !== undefined && slot.running === query) slot.running = undefined;
      if (slot.running === undefined && slot.gathering === undefined) this.slots.delete(key);
    }
  }

  private async readOn<T>(client: Tx, read: (client: Tx) => Promise<T>): Promise<T> {
    try {
      const result = await read(client);
      client.release();
      return result;
    } catch (error) {
      // An answer (a 404, say) leaves the connection as it was; any other failure may have
      // left it broken or inside a transaction, so it must not go back to the pool (pg's own
      // pool.query discards it on every error).
      client.release(error instanceof ApiError ? undefined : error instanceof Error ? error : true);
      throw error;
    }
  }
}
