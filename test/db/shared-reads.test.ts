// Identical reads queued for a connection share one query, and still see every write that
// committed before they arrived.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPool } from '../../src/db/pool.ts';
import { SharedReads } from '../../src/db/shared-reads.ts';
import { createTestDatabase } from '../helpers.ts';

const url = await createTestDatabase();

describe('shared reads', () => {
  it('answers identical reads queued behind a busy pool with one query', async (t) => {
    const db = createPool(url, 1);
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
    const db = createPool(url, 1);
    t.after(() => db.end());
    const reads = new SharedReads(db);
    const holder = await db.connect();
    const a = reads.run('a', async (c) => (await c.query('SELECT 1 AS n')).rows[0].n as number);
    const b = reads.run('b', async (c) => (await c.query('SELECT 2 AS n')).rows[0].n as number);
    holder.release();
    assert.deepEqual(await Promise.all([a, b]), [1, 2]);
  });

  it('never joins a query already sent: a read after a commit sees that commit', async (t) => {
    const db = createPool(url, 3);
    t.after(() => db.end());
    await db.query('CREATE TABLE counter (n int NOT NULL)');
    await db.query('INSERT INTO counter VALUES (0)');
    const reads = new SharedReads(db);
    let queries = 0;
    const read = () =>
      reads.run('counter', async (client) => {
        queries++;
        // Slow enough that the write below commits while this query runs.
        const { rows } = await client.query<{ n: number }>('SELECT n, pg_sleep(0.2) FROM counter');
        return rows[0]!.n;
      });
    const early = read();
    // Let the first read take its connection and send its query.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await db.query('UPDATE counter SET n = 1');
    const late = read();
    assert.equal(await early, 0);
    assert.equal(await late, 1, 'the late read ran a query of its own, after the commit');
    assert.equal(queries, 2);
  });

  it('passes a failure to every joined read and serves the next read afresh', async (t) => {
    const db = createPool(url, 1);
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
