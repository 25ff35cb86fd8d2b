// The checksum the fuzz scenario proves "a refused request changed nothing" with: it must see
// every committed change, none that was rolled back, and skip reading the tables only when no
// statement has written to them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { changedTables, checksummer, createScratchDatabase, tenantKey } from './databases.ts';
import type { ScratchDatabase } from './databases.ts';

const adminUrl = process.env.TEST_DATABASE_URL!;

describe('the checksum of every table', () => {
  let database: ScratchDatabase;
  let checksum: () => Promise<Map<string, string>>;
  before(async () => {
    database = await createScratchDatabase(adminUrl);
    await tenantKey(database.db);
    checksum = await checksummer(database.db);
  });
  after(() => database.drop());

  it('is the same when nothing was written, without reading the tables again', async () => {
    const first = await checksum();
    await database.db.query('SELECT count(*) FROM customers');
    assert.equal(await checksum(), first);
  });

  it('sees an insert, an update and a delete, each committed', async () => {
    const { db } = database;
    const tenant = (await db.query<{ id: string }>('SELECT tenant_id AS id FROM tenants LIMIT 1'))
      .rows[0]!.id;
    let sums = await checksum();
    const steps = [
      [
        `INSERT INTO customers (tenant_id, environment, id, name, email)
           VALUES ($1, 'test', 'cus_checksum', 'Before', 'a@example.com')`,
        [tenant],
      ],
      [
        `UPDATE customers SET name = 'After' WHERE tenant_id = $1 AND id = 'cus_checksum'`,
        [tenant],
      ],
      [`DELETE FROM customers WHERE tenant_id = $1 AND id = 'cus_checksum'`, [tenant]],
    ] as const;
    for (const [sql, params] of steps) {
      await db.query(sql, [...params]);
      const next = await checksum();
      assert.deepEqual(
        changedTables(sums, next).map((t) => t.split(' ')[0]),
        ['customers'],
        sql,
      );
      sums = next;
    }
  });

  it('sees no change from a write that was rolled back', async () => {
    const { db } = database;
    const sums = await checksum();
    const client = await db.connect();
    try {
      await client.query('BEGIN');
      await client.query(`UPDATE tenants SET name = 'Rolled back'`);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    assert.deepEqual(changedTables(sums, await checksum()), []);
  });
});
