import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import { insertUsageEvents } from '../../src/usage/events-store.ts';
import type { UsageEventRecord } from '../../src/usage/events.ts';
import { createMigratedDatabase, directUrl } from '../helpers.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

// A batch's insert answers its ids kept before (src/usage/events-store.ts) from the rows it
// meets, so no look-up depends on what the planner believes of the tenant: for a tenant the
// table's statistics did not show yet, a look-up by id read all of the tenant's events through
// usage_events_by_customer. Counted from PostgreSQL's index statistics.
describe('a batch’s ids kept before', () => {
  it('are answered by its insert, without reading the tenant’s events', async () => {
    const { url } = await createMigratedDatabase();
    const pool = new pg.Pool({ connectionString: directUrl(url), max: 1 });
    const client = await pool.connect();
    try {
      const insert = (tenant: string, count: number) =>
        client.query(
          `INSERT INTO usage_events (tenant_id, environment, id, event_name, customer_id,
                                     occurred_at, properties, content_hash)
           SELECT $1, 'test', $1 || '-' || g, 'api_call', 'cus_' || (g % 100), now(), '{}',
                  sha256(g::text::bytea)
             FROM generate_series(1, $2::int) g`,
          [tenant, count],
        );
      await insert('ten_known', 20_000);
      await client.query('ANALYZE usage_events');
      await insert('ten_new', 20_000);
      const indexReads = async () => {
        await client.query('SELECT pg_stat_force_next_flush()');
        const { rows } = await client.query<{ other: string }>(
          `SELECT coalesce(sum(idx_tup_read), 0) AS other FROM pg_stat_user_indexes
            WHERE relname LIKE 'usage_events%' AND indexrelname NOT LIKE '%pkey%'`,
        );
        return Number(rows[0]!.other);
      };
      const now = new Date();
      const event = (id: string, hash: Buffer): UsageEventRecord => ({
        id,
        eventName: 'api_call',
        customerId: 'cus_1',
        occurredAt: now,
        utcTimestamp: now.toISOString(),
        properties: {},
        hash,
      });
      const batch = [
        event('ten_new-17', sha256('17')),
        event('ten_new-4242', sha256('4242')),
        event('ten_new-19999', sha256('19999')),
        event('ten_new-7', sha256('other content')),
        event('fresh-1', sha256('fresh-1')),
        event('fresh-2', sha256('fresh-2')),
      ];
      const scope = { tenantId: 'ten_new', environment: 'test' } as const;
      const before = await indexReads();
      const first = await insertUsageEvents(client, scope, batch);
      assert.deepEqual([...first.kept].sort(), ['fresh-1', 'fresh-2']);
      assert.deepEqual([...first.otherContent], [['ten_new-7', sha256('7')]]);
      const again = await insertUsageEvents(client, scope, batch);
      assert.deepEqual([...again.kept], []);
      assert.deepEqual([...again.otherContent], [['ten_new-7', sha256('7')]]);
      assert.equal((await indexReads()) - before, 0, 'entries read from other indexes');
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM usage_events WHERE tenant_id = 'ten_new'`,
      );
      assert.equal(rows[0]!.n, 20_002);
    } finally {
      client.release();
      await pool.end();
    }
  });
});
