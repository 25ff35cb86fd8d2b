// The key verifier's LISTEN connection at shutdown: close() hands it back to the pool, and the
// database may then end it (an embedded PostgreSQL stops right after); the verifier must leave
// it to the pool (releasing it again threw in an event handler and failed the process's exit).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { createPool } from '../../src/db/pool.ts';
import { KeyVerifier } from '../../src/keys/verifier.ts';
import { createTestDatabase, directUrl, sleep, waitFor } from '../helpers.ts';

const url = await createTestDatabase();
const database = new URL(url).pathname.slice(1);
// A pool: its connection, idle when the file's database is dropped, may end without a word.
const admin = createPool(directUrl(url), 1);
after(() => admin.end());

/** The one connection of this database whose last statement is `query`, other than `except`. */
function connectionRunning(query: string, except?: number): Promise<number> {
  return waitFor(
    async () => {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
          WHERE datname = $1 AND query = $2 AND pid IS DISTINCT FROM $3`,
        [database, query, except ?? null],
      );
      return rows.length === 1 ? rows[0]!.pid : undefined;
    },
    `a connection of ${database} that ran ${query}`,
    3000,
    20,
  );
}

describe('key verifier', () => {
  it('leaves its connection to the pool after close(), even if the database then ends it', async () => {
    const db = createPool(directUrl(url), 2);
    const errors: unknown[] = [];
    const onUncaught = (error: unknown) => errors.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const verifier = new KeyVerifier(db, 1000);
      await verifier.start();
      await verifier.close();
      const pid = await connectionRunning('UNLISTEN *');
      const ended = new Promise((resolve) => db.once('error', () => resolve('ended')));
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      // The pool sees its idle connection end (with the old handler, which threw first, it
      // never did).
      assert.equal(await Promise.race([ended, sleep(5000).then(() => 'not seen')]), 'ended');
      // The other handlers of that same 'error' (the old one threw) have run by the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(errors, []);
      assert.equal(db.totalCount, 0);
    } finally {
      process.off('uncaughtException', onUncaught);
      await db.end();
    }
  });

  it('hands back a connection still being made when close() is called', async () => {
    const db = createPool(directUrl(url), 2);
    // Every connection handed out, so that a leaked one can be ended and the test fail rather
    // than hang.
    const handedOut: pg.PoolClient[] = [];
    const connect = db.connect.bind(db) as () => Promise<pg.PoolClient>;
    Object.assign(db, {
      connect: async () => {
        const client = await connect();
        handedOut.push(client);
        return client;
      },
    });
    try {
      const verifier = new KeyVerifier(db, 1000);
      const starting = verifier.start();
      await verifier.close();
      await starting;
      assert.equal(handedOut.length, 1);
      assert.equal(db.totalCount - db.idleCount, 0, 'no connection left checked out');
    } finally {
      if (db.totalCount - db.idleCount > 0) for (const client of handedOut) client.release(true);
      await db.end();
    }
  });

  it('listens again on a new connection when its connection ends while it runs', async () => {
    const db = createPool(directUrl(url), 2);
    const verifier = new KeyVerifier(db, 1000);
    try {
      await verifier.start();
      const first = await connectionRunning('LISTEN api_key_changed');
      await admin.query('SELECT pg_terminate_backend($1)', [first]);
      // A new connection listens within the verifier's 1 s retry.
      const second = await connectionRunning('LISTEN api_key_changed', first);
      assert.notEqual(second, first);
    } finally {
      await verifier.close();
      await db.end();
    }
  });
});
