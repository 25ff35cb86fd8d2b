// How the pool sends statements (src/db/pool.ts; docs/scaling.md, "Round trips"): each
// statement with parameters prepared once per connection, under a name taken from its text;
// the statements issued in one turn of the microtasks sent in one write.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { createPool, type Tx } from '../../src/db/pool.ts';
import { createTestDatabase, directUrl } from '../helpers.ts';

// Directly to PostgreSQL: what is counted is this pool's own connection.
const url = directUrl(await createTestDatabase());

async function preparedOn(client: Tx): Promise<{ name: string; statement: string }[]> {
  const { rows } = await client.query<{ name: string; statement: string }>(
    'SELECT name, statement FROM pg_prepared_statements ORDER BY statement',
  );
  return rows;
}

describe('the pool', () => {
  const db = createPool(url, 1);
  after(() => db.end());

  it('prepares a statement with parameters once per connection, named by its text', async () => {
    const client = await db.connect();
    try {
      const text = 'SELECT $1::int + 1 AS n';
      for (const n of [1, 2, 3]) {
        const { rows } = await client.query<{ n: number }>(text, [n]);
        assert.equal(rows[0]!.n, n + 1);
      }
      // The same text in a query object: the same statement.
      await client.query({ text, values: [4] });
      // A name the code gives is kept; a statement without parameters is sent unnamed.
      await client.query({ name: 'named_by_code', text: 'SELECT $1::text AS t', values: ['x'] });
      await client.query('SELECT 1 AS one');
      const prepared = await preparedOn(client);
      assert.deepEqual(
        prepared.map((p) => p.statement),
        ['SELECT $1::int + 1 AS n', 'SELECT $1::text AS t'],
      );
      assert.match(prepared[0]!.name, /^s_[A-Za-z0-9_-]{22}$/);
      assert.equal(prepared[1]!.name, 'named_by_code');
    } finally {
      client.release();
    }
  });

  it('sends every statement unnamed when told to (a pooler that cannot keep them)', async () => {
    const unnamed = createPool(url, 1, { preparedStatements: false });
    try {
      const client = await unnamed.connect();
      try {
        await client.query('SELECT $1::int + 1 AS n', [1]);
        await client.query({ name: 'named_by_code', text: 'SELECT $1::text AS t', values: ['x'] });
        assert.deepEqual(await preparedOn(client), []);
      } finally {
        client.release();
      }
    } finally {
      await unnamed.end();
    }
  });

  it('sends the statements issued in one turn in one write, each answered', async () => {
    const client = await db.connect();
    try {
      const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
      let writes = 0;
      const count = <F extends (...args: never[]) => unknown>(f: F) =>
        ((...args: Parameters<F>) => {
          writes++;
          return f.apply(stream, args);
        }) as unknown as F;
      const internals = stream as unknown as { _write: () => void; _writev: () => void };
      const original = { write: internals._write, writev: internals._writev };
      internals._write = count(original.write);
      internals._writev = count(original.writev);
      try {
        // Ten statements issued without waiting: one write.
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            client.query<{ n: number }>('SELECT $1::int AS n', [i]),
          ),
        );
        assert.deepEqual(
          answers.map((a) => a.rows[0]!.n),
          Array.from({ length: 10 }, (_, i) => i),
        );
        assert.equal(writes, 1);
        // One awaited after the other: a write each.
        writes = 0;
        await client.query('SELECT $1::int AS n', [1]);
        await client.query('SELECT $1::int AS n', [2]);
        assert.equal(writes, 2);
        // A failing statement among them fails alone.
        const [bad, good] = await Promise.allSettled([
          client.query('SELECT 1 / $1::int AS n', [0]),
          client.query<{ n: number }>('SELECT $1::int AS n', [7]),
        ]);
        assert.equal(bad.status, 'rejected');
        assert.equal(good.status === 'fulfilled' && good.value.rows[0]!.n, 7);
      } finally {
        internals._write = original.write;
        internals._writev = original.writev;
      }
    } finally {
      client.release();
    }
  });
});
