// A named statement is described once per connection (src/db/row-shapes.ts): its later
// executions there are sent without a Describe and answer the same rows, parsed as before.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createPool } from '../../src/db/pool.ts';
import { TEXT_TYPES } from '../../src/db/text-rows.ts';
import { createTestDatabase, directUrl } from '../helpers.ts';

const url = await createTestDatabase();
const direct = directUrl(url);
// Named statements need the server itself (behind PgBouncer they are sent unnamed).
const db = createPool(direct, 2);
after(() => db.end());

/** A client of the pool whose Describe messages are counted. */
async function counted(pool = db) {
  const client = await pool.connect();
  const connection = (client as unknown as { connection: { describe: (m: unknown) => void } })
    .connection;
  const describe = connection.describe.bind(connection);
  let describes = 0;
  connection.describe = (message: unknown) => {
    describes++;
    describe(message);
  };
  return { client, describes: () => describes };
}

describe('columns of a prepared statement', () => {
  it('describes a statement once per connection and answers its rows the same', async () => {
    const { client, describes } = await counted();
    try {
      const sql = `SELECT $1::int AS n, $2::text AS s, now() AS at, NULL::int AS none, '{1,2}'::int[] AS list`;
      const first = await client.query(sql, [1, 'one']);
      assert.equal(describes(), 1);
      const second = await client.query(sql, [2, 'two']);
      const third = await client.query(sql, [3, 'three']);
      assert.equal(describes(), 1, 'no Describe once the columns are known');
      assert.deepEqual(
        [first, second, third].map((r) => ({ ...r.rows[0], at: r.rows[0].at instanceof Date })),
        [
          { n: 1, s: 'one', at: true, none: null, list: [1, 2] },
          { n: 2, s: 'two', at: true, none: null, list: [1, 2] },
          { n: 3, s: 'three', at: true, none: null, list: [1, 2] },
        ],
      );
      assert.deepEqual(
        second.fields.map((f) => f.name),
        ['n', 's', 'at', 'none', 'list'],
      );
      // The same statement read as text: the same columns, parsed by the query's own types.
      const text = await client.query({ text: sql, values: [4, 'four'], types: TEXT_TYPES });
      assert.equal(describes(), 1);
      assert.deepEqual(text.rows[0].n, '4');
      assert.deepEqual(text.rows[0].list, '{1,2}');
      const again = await client.query(sql, [5, 'five']);
      assert.equal(again.rows[0].n, 5);
    } finally {
      client.release();
    }
  });

  it('keeps that a statement answers no rows, and counts what it changed', async () => {
    await db.query('CREATE TABLE shapes_t (id int PRIMARY KEY, v text)');
    const { client, describes } = await counted();
    try {
      const insert = 'INSERT INTO shapes_t (id, v) VALUES ($1, $2)';
      const a = await client.query(insert, [1, 'a']);
      const b = await client.query(insert, [2, 'b']);
      assert.equal(describes(), 1);
      assert.deepEqual([a.rowCount, b.rowCount, b.rows, b.command], [1, 1, [], 'INSERT']);
      const update = 'UPDATE shapes_t SET v = $1 WHERE id <= $2 RETURNING id, v';
      await client.query(update, ['x', 1]);
      const updated = await client.query(update, ['y', 2]);
      assert.equal(describes(), 2);
      assert.deepEqual(
        updated.rows.sort((p, q) => p.id - q.id),
        [
          { id: 1, v: 'y' },
          { id: 2, v: 'y' },
        ],
      );
    } finally {
      client.release();
    }
  });

  it('describes a statement again after it failed', async () => {
    const { client, describes } = await counted();
    try {
      const sql = 'SELECT 10 / $1::int AS q';
      assert.equal((await client.query(sql, [2])).rows[0].q, 5);
      assert.equal((await client.query(sql, [5])).rows[0].q, 2);
      assert.equal(describes(), 1);
      await assert.rejects(client.query(sql, [0]), /division by zero/);
      assert.equal((await client.query(sql, [1])).rows[0].q, 10);
      assert.equal(describes(), 2, 'described again after the failure');
      assert.equal((await client.query(sql, [10])).rows[0].q, 1);
      assert.equal(describes(), 2);
    } finally {
      client.release();
    }
  });

  it('describes every execution behind a pooler, where the server connection may change', async () => {
    const pooled = createPool(direct, 1, { pooler: true, preparedStatements: true });
    const { client, describes } = await counted(pooled);
    try {
      const sql = 'SELECT $1::int AS n';
      assert.equal((await client.query(sql, [1])).rows[0].n, 1);
      assert.equal((await client.query(sql, [2])).rows[0].n, 2);
      assert.equal(describes(), 2);
    } finally {
      client.release();
      await pooled.end();
    }
  });
});
