// Identical reads share one query (one in flight per key, the rest gathering for the next),
// and still see every write that committed before they arrived.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPool, snapshotOn, type Db } from '../../src/db/pool.ts';
import { ResourceMissingError } from '../../src/http/errors.ts';
import { SharedReads } from '../../src/db/shared-reads.ts';
import { createTestDatabase, directUrl, testPool } from '../helpers.ts';

const url = await createTestDatabase();

/** Waits until a statement containing `fragment` is running in the database. */
async function untilRunning(db: Db, fragment: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()`,
      [fragment],
    );
    if (rows[0].n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never saw ${fragment} running`);
}

describe('shared reads', () => {
  it('answers identical reads queued behind a busy pool with one query', async (t) => {
    const db = testPool(url, 1);
    t.after(() => db.end());
    const reads = new SharedReads(db);
    // Hold the only connection so the reads queue.
    const holder = await db.connect();
    let queries = 0;
    const read = () =>
      reads.run('same', async (client) => {
        queries++;
        return (await client.query<{ n: number }>('SELECT 42 AS n')).rows[0]!.n;
      });
    const pending = [read(), read(), read()];
    holder.release();
    assert.deepEqual(await Promise.all(pending), [42, 42, 42]);
    assert.equal(queries, 1);
  });

  it('does not share between different keys', async (t) => {
    const db = testPool(url, 1);
    t.after(() => db.end());
    const reads = new SharedReads(db);
    const holder = await db.connect();
    const a = reads.run('a', async (c) => (await c.query('SELECT 1 AS n')).rows[0].n as number);
    const b = reads.run('b', async (c) => (await c.query('SELECT 2 AS n')).rows[0].n as number);
    holder.release();
    assert.deepEqual(await Promise.all([a, b]), [1, 2]);
  });

  it('never joins a query already sent: a read after a commit sees that commit', async (t) => {
    const db = testPool(url, 3);
    t.after(() => db.end());
    await db.query('CREATE TABLE counter (n int NOT NULL)');
    await db.query('INSERT INTO counter VALUES (0)');
    const reads = new SharedReads(db);
    let queries = 0;
    const read = () =>
      reads.run('counter', async (client) => {
        queries++;
        // Slow enough that the write below commits while this query runs.
        const { rows } = await client.query<{ n: number }>('SELECT n, pg_sleep(0.4) FROM counter');
        return rows[0]!.n;
      });
    const early = read();
    // The first read's query runs (its snapshot is taken) before the write.
    await untilRunning(db, 'pg_sleep(0.4) FROM counter');
    await db.query('UPDATE counter SET n = 1');
    const late = read();
    assert.equal(await early, 0);
    assert.equal(await late, 1, 'the late read ran a query of its own, after the commit');
    assert.equal(queries, 2);
  });

  it('runs one query of a key at a time: reads that come meanwhile share the next, which sees what committed before them', async (t) => {
    const db = testPool(url, 4);
    t.after(() => db.end());
    await db.query('CREATE TABLE burst (n int NOT NULL)');
    await db.query('INSERT INTO burst VALUES (0)');
    const reads = new SharedReads(db);
    let queries = 0;
    const read = () =>
      reads.run('burst', async (client) => {
        queries++;
        const { rows } = await client.query<{ n: number }>('SELECT n, pg_sleep(0.4) FROM burst');
        return rows[0]!.n;
      });
    const early = read();
    await untilRunning(db, 'pg_sleep(0.4) FROM burst');
    await db.query('UPDATE burst SET n = 1');
    // Connections are free, yet these wait for the query in flight and then share one.
    const late = [read(), read(), read(), read(), read()];
    assert.equal(await early, 0);
    assert.deepEqual(await Promise.all(late), [1, 1, 1, 1, 1]);
    assert.equal(queries, 2);
    // Nothing in flight: the next read is sent at once, on its own.
    assert.equal(await read(), 1);
    assert.equal(queries, 3);
  });

  it('lets a read through after the query it waited for failed', async (t) => {
    const db = testPool(url, 2);
    t.after(() => db.end());
    const reads = new SharedReads(db);
    let sent!: () => void;
    const firstSent = new Promise<void>((resolve) => (sent = resolve));
    const first = reads.run('y', async (c) => {
      sent();
      await c.query('SELECT pg_sleep(0.1)');
      return c.query('SELECT 1/0');
    });
    // Sent by now: this one waits for it, and runs after its failure.
    await firstSent;
    const second = reads.run('y', async (c) => (await c.query('SELECT 8 AS n')).rows[0].n);
    await assert.rejects(first, /division by zero/);
    assert.equal(await second, 8);
  });

  it('keeps the connection after an answer such as 404, and discards it after a failure', async (t) => {
    // Connections told apart by their backend: only without a pooler between.
    const db = createPool(directUrl(url), 1);
    t.after(() => db.end());
    const reads = new SharedReads(db);
    const pid = () =>
      reads.run('pid', async (c) => (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p);
    const first = await pid();
    await assert.rejects(
      reads.run('missing', (c) =>
        snapshotOn(c, async (tx) => {
          await tx.query('SELECT 1');
          throw new ResourceMissingError('invoice', 'inv_none');
        }),
      ),
      ResourceMissingError,
    );
    assert.equal(await pid(), first, 'the same connection, its snapshot rolled back');
    assert.equal(
      await reads.run(
        'tx',
        async (c) => (await c.query('SELECT now() = statement_timestamp() AS t')).rows[0].t,
      ),
      true,
      'no transaction left open',
    );
    await assert.rejects(
      reads.run('bad', (c) => c.query('SELECT 1/0')),
      /division by zero/,
    );
    assert.notEqual(await pid(), first, 'a new connection after a failed query');
  });

  it('passes a failure to every joined read and serves the next read afresh', async (t) => {
    const db = testPool(url, 1);
    t.after(() => db.end());
    const reads = new SharedReads(db);
    const holder = await db.connect();
    const failing = () => reads.run('x', async (c) => c.query('SELECT 1/0'));
    const pending = [failing(), failing()];
    holder.release();
    for (const p of pending) await assert.rejects(p, /division by zero/);
    const ok = await reads.run('x', async (c) => (await c.query('SELECT 7 AS n')).rows[0].n);
    assert.equal(ok, 7);
  });
});
