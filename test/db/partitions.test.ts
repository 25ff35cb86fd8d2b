// Tenant tables hash-partitioned by tenant_id (src/db/partitioning.ts): the migrator converts
// them keeping every key and row, later migrations still apply, and the statements each module
// runs touch one partition. The whole suite also runs on this layout with BILLING_PARTITIONS=N;
// these tests run in every pass, on databases of their own (N partitions then, 4 otherwise).
import { todayUtcOf } from '../../src/clock.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.ts';
import { TENANT_PARTITIONS_SETTING } from '../../src/db/partitioning.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import {
  CROSS_TENANT_INDEXES,
  CROSS_TENANT_MARKER,
  CROSS_TENANT_STATEMENTS,
  DISTRIBUTION_COLUMN,
  REFERENCE_TABLES,
} from '../../src/db/sharding.ts';
import { purgeExpiredIdempotencyKeys } from '../../src/db/unit-of-work.ts';
import { runDunning } from '../../src/dunning/service.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import {
  client,
  createTenantWithKey,
  createTestDatabase,
  directUrl,
  startTestServer,
  testPartitions,
  testPool,
  waitFor,
} from '../helpers.ts';
import { shardingViolations } from './catalogue.ts';
import { bookkeeping, consoleDay, tenantDay } from './tenant-day.ts';
import {
  collectPlans,
  explainEveryStatement,
  partitionParents,
  partitionsTouched,
} from './plans.ts';

const PARTITIONS = testPartitions() || 4;
const rules = {
  distributionColumn: DISTRIBUTION_COLUMN,
  referenceTables: REFERENCE_TABLES,
  crossTenantIndexes: CROSS_TENANT_INDEXES,
};

/** Columns, constraints, indexes and triggers of every table, as the catalogue states them. */
async function schemaOf(db: Db): Promise<Record<string, unknown>> {
  const { rows } = await db.query<{ name: string; definition: unknown }>(
    `SELECT c.relname AS name, json_build_object(
       'columns', (SELECT json_agg(json_build_array(a.attname, format_type(a.atttypid, a.atttypmod),
                                   a.attnotnull, pg_get_expr(d.adbin, d.adrelid), co.collname)
                                   ORDER BY a.attnum)
                     FROM pg_attribute a
                     LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                     LEFT JOIN pg_collation co ON co.oid = a.attcollation
                    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
       'constraints', (SELECT json_agg(json_build_array(k.conname, pg_get_constraintdef(k.oid))
                                        ORDER BY k.conname)
                         FROM pg_constraint k
                        WHERE k.conrelid = c.oid AND k.contype <> 'n' AND k.conparentid = 0),
       -- A partitioned table's index is defined ON ONLY the table (its partitions have theirs).
       'indexes', (SELECT json_agg(replace(pg_get_indexdef(i.indexrelid), ' ON ONLY ', ' ON ')
                                    ORDER BY i.indexrelid::regclass::text)
                     FROM pg_index i WHERE i.indrelid = c.oid),
       'triggers', (SELECT json_agg(pg_get_triggerdef(t.oid) ORDER BY t.tgname)
                      FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal)) AS definition
       FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
        AND NOT c.relispartition
      ORDER BY c.relname`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.definition]));
}

/** Each table's rows, as one md5 of their JSON in a fixed order. */
async function rowsOf(db: Db, tables: string[]): Promise<Record<string, string>> {
  const sums: Record<string, string> = {};
  for (const table of tables) {
    const { rows } = await db.query<{ sum: string }>(
      `SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) AS sum
         FROM (SELECT to_jsonb(x) AS t FROM ${pg.escapeIdentifier(table)} x) s`,
    );
    sums[table] = rows[0]!.sum;
  }
  return sums;
}

async function layoutOf(db: Db): Promise<Map<string, { kind: string; partitions: number }>> {
  const { rows } = await db.query<{ name: string; kind: string; partitions: number }>(
    `SELECT c.relname AS name, c.relkind::text AS kind,
            (SELECT count(*)::int FROM pg_inherits i WHERE i.inhparent = c.oid) AS partitions
       FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
        AND NOT c.relispartition`,
  );
  return new Map(rows.map((r) => [r.name, { kind: r.kind, partitions: r.partitions }]));
}

describe(`tenant tables in ${PARTITIONS} hash partitions by tenant_id`, () => {
  it('converts a database in use keeping every column, key, index, trigger and row', async () => {
    const url = await createTestDatabase({ tenantPartitions: 0 });
    const server = await startTestServer(url);
    await bookkeeping(server, 3);
    // Nothing of the server's is left to be written behind the comparison's back: the keys'
    // last use, and the documents of what was issued, which its worker renders after the
    // issues were answered (src/documents/render-queue.ts).
    await server.verifier.flushLastUsed();
    await waitFor(async () => {
      const queued = await server.db.query('SELECT 1 FROM document_renders LIMIT 1');
      return queued.rowCount === 0;
    }, 'the documents of the issued invoices rendered');
    const admin = createPool(directUrl(url), 2);
    try {
      // A trigger of the operator's own, to be kept too.
      await admin.query(`
        CREATE FUNCTION note_customer() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.description := coalesce(NEW.description, 'noted'); RETURN NEW; END $$;
        CREATE TRIGGER customers_noted BEFORE INSERT ON customers
          FOR EACH ROW EXECUTE FUNCTION note_customer();`);
      const plainLayout = await layoutOf(admin);
      const tenantTables = [...plainLayout.keys()].filter(
        (t) => !Object.hasOwn(REFERENCE_TABLES, t),
      );
      const schema = await schemaOf(admin);
      const rows = await rowsOf(admin, [...plainLayout.keys()]);

      await admin.query(
        `ALTER DATABASE ${pg.escapeIdentifier(new URL(url).pathname.slice(1))}
           SET ${TENANT_PARTITIONS_SETTING} = ${pg.escapeLiteral(String(PARTITIONS))}`,
      );
      // A new session sees the database's setting; the migrator converts.
      const migrator = createPool(directUrl(url), 1);
      assert.deepEqual(await migrate(migrator), []);
      await migrator.end();

      const layout = await layoutOf(admin);
      for (const table of tenantTables) {
        assert.deepEqual(layout.get(table), { kind: 'p', partitions: PARTITIONS }, table);
      }
      for (const table of Object.keys(REFERENCE_TABLES)) {
        assert.deepEqual(layout.get(table), { kind: 'r', partitions: 0 }, table);
      }
      assert.deepEqual(await schemaOf(admin), schema);
      assert.deepEqual(await rowsOf(admin, [...plainLayout.keys()]), rows);
      assert.deepEqual(await shardingViolations(admin, rules), []);

      // The keys, checks and triggers still hold on the partitioned tables.
      const {
        rows: [line],
      } = await admin.query(
        'SELECT tenant_id, environment, invoice_id, id FROM invoice_lines LIMIT 1',
      );
      await assert.rejects(
        admin.query(
          `INSERT INTO invoice_lines (tenant_id, environment, invoice_id, id, position, description,
                                      quantity, unit_amount, amount)
           VALUES ($1, $2, 'inv_missing', 'il_x', 1, 'x', 1, 1, 1)`,
          [line.tenant_id, line.environment],
        ),
        /foreign key/,
      );
      await assert.rejects(
        admin.query(
          `INSERT INTO invoice_lines (tenant_id, environment, invoice_id, id, position, description,
                                      quantity, unit_amount, amount)
           VALUES ($1, $2, $3, $4, 99, 'x', 1, 1, 1)`,
          [line.tenant_id, line.environment, line.invoice_id, line.id],
        ),
        /duplicate key/,
      );
      await assert.rejects(
        admin.query(`UPDATE invoices SET total = total + 1 WHERE tenant_id = $1`, [line.tenant_id]),
        /invoices_consistent/,
      );
      const {
        rows: [noted],
      } = await admin.query(
        `INSERT INTO customers (tenant_id, environment, id) VALUES ($1, 'test', 'cus_noted')
         RETURNING description`,
        [line.tenant_id],
      );
      assert.equal(noted.description, 'noted');

      // The server that was running goes on working on the new tables.
      const key = await createTenantWithKey(server.db);
      const api = client(server.url, key.secret);
      assert.equal((await api.post('/v1/customers', { name: 'After' })).status, 201);
      assert.equal((await api.get('/v1/customers')).body.data.length, 1);
    } finally {
      await admin.end();
    }
  });

  it('applies later migrations on top, converts the tables they add, and refuses a key without tenant_id', async () => {
    const url = await createTestDatabase({ tenantPartitions: PARTITIONS });
    const db = testPool(url, 1);
    try {
      await migrate(db);
      const before = await db.query(`SELECT oid::int FROM pg_class WHERE relname = 'invoices'`);
      // Again: nothing to convert, nothing converted.
      assert.deepEqual(await migrate(db), []);
      await db.query(`
        ALTER TABLE invoices ADD COLUMN probe_reference text;
        CREATE INDEX invoices_by_probe_reference
          ON invoices (tenant_id, environment, probe_reference);
        ALTER TABLE customers ADD CONSTRAINT customers_name_length CHECK (length(name) < 1000);
        CREATE TABLE probe_ledger (
          tenant_id text COLLATE "C" NOT NULL, environment text NOT NULL,
          id text COLLATE "C" NOT NULL, invoice_id text COLLATE "C" NOT NULL,
          amount bigint NOT NULL CHECK (amount > 0),
          PRIMARY KEY (tenant_id, environment, id),
          FOREIGN KEY (tenant_id, environment, invoice_id)
            REFERENCES invoices (tenant_id, environment, id));`);
      await migrate(db);
      const after = await db.query(`SELECT oid::int FROM pg_class WHERE relname = 'invoices'`);
      assert.deepEqual(after.rows, before.rows);
      const layout = await layoutOf(db);
      assert.deepEqual(layout.get('probe_ledger'), { kind: 'p', partitions: PARTITIONS });
      const { rows: partitionColumns } = await db.query(
        `SELECT count(*)::int AS n FROM pg_attribute a JOIN pg_inherits i ON i.inhrelid = a.attrelid
          JOIN pg_class p ON p.oid = i.inhparent
         WHERE p.relname = 'invoices' AND a.attname = 'probe_reference'`,
      );
      assert.equal(partitionColumns[0].n, PARTITIONS);
      // The partitions' copies of the new index are named after it, as the others are.
      const { rows: copies } = await db.query(
        `SELECT count(*)::int AS n FROM pg_class WHERE relname ~ '^invoices_by_probe_reference_p[0-9]+$'`,
      );
      assert.equal(copies[0].n, PARTITIONS);
      const { rows: keys } = await db.query(
        `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint
          WHERE conrelid = 'probe_ledger'::regclass AND contype = 'f' AND conparentid = 0`,
      );
      assert.deepEqual(
        keys.map((k) => k.definition),
        [
          'FOREIGN KEY (tenant_id, environment, invoice_id) REFERENCES invoices(tenant_id, environment, id)',
        ],
      );
      assert.deepEqual(await shardingViolations(db, rules), []);
      // What Citus would refuse, partitioning refuses as well.
      await assert.rejects(
        db.query(
          'ALTER TABLE customers ADD CONSTRAINT customers_email_key UNIQUE (environment, email)',
        ),
        /must include all partitioning columns/,
      );
    } finally {
      await db.end();
    }
  });

  it('purges expired Idempotency-Key results in every partition, and only those', async () => {
    const url = await createTestDatabase({ tenantPartitions: PARTITIONS });
    const db = testPool(url, 1);
    try {
      await migrate(db);
      // Two tenants whose rows are each the first of their partition: the same ctid, (0,1).
      const insert = (tenant: string, age: string) =>
        db.query(
          `INSERT INTO idempotency_keys (tenant_id, environment, key, fingerprint, status_code,
                                         response_body, key_id, lineage_id, created_at)
           VALUES ($1, 'test', 'k', '\\x00', 200, '{}', 'key_x', 'key_x', now() - $2::interval)
           RETURNING tableoid::regclass::text AS partition, ctid::text`,
          [tenant, age],
        );
      const expired = (await insert('ten_expired', '30 days')).rows[0];
      let fresh;
      for (let n = 0; ; n++) {
        fresh = (await insert(`ten_fresh_${n}`, '1 minute')).rows[0];
        if (fresh.partition !== expired.partition) break;
        await db.query('DELETE FROM idempotency_keys WHERE tenant_id = $1', [`ten_fresh_${n}`]);
      }
      assert.equal(fresh.ctid, expired.ctid);
      assert.equal(await purgeExpiredIdempotencyKeys(db), 1);
      const { rows } = await db.query('SELECT tenant_id FROM idempotency_keys');
      assert.equal(rows.length, 1);
      assert.match(rows[0].tenant_id, /^ten_fresh_/);
    } finally {
      await db.end();
    }
  });

  it('runs the statements of every module on one partition (EXPLAIN ANALYZE of what the app ran)', async () => {
    const url = await createTestDatabase({ tenantPartitions: PARTITIONS });
    const name = new URL(url).pathname.slice(1);
    const admin = createPool(directUrl(url), 1);
    await explainEveryStatement(admin, name);
    // Generic plans, as prepared statements get after their fifth run: the partition is then
    // chosen when the plan runs, from the parameters, not when it is made.
    await admin.query(
      `ALTER DATABASE ${pg.escapeIdentifier(name)} SET plan_cache_mode = force_generic_plan`,
    );
    const collected = collectPlans();
    const receiver = await startReceiver();
    try {
      const server = await startTestServer(url, { webhooksAllowLoopback: true });
      // Other tenants' rows in the other partitions.
      await bookkeeping(server, 3);
      const key = await createTenantWithKey(server.db);
      const api = client(server.url, key.secret);
      await server.verifier.flushLastUsed();
      collected.plans.length = 0;

      await tenantDay(server.url, api, receiver);
      await consoleDay(server, key.tenantId);
      await runDunning(server.db, todayUtcOf(server.clock));
      // The key verifier's batched write of lastUsedAt (every 10 s, and now).
      await server.verifier.flushLastUsed();
      // A control: a statement that reads every tenant must be caught.
      await server.db.query('SELECT count(*) FROM invoices');
      const plans = [...collected.plans];
      collected.stop();

      const report = partitionsTouched(plans, await partitionParents(admin), {
        indexes: CROSS_TENANT_INDEXES,
        statements: CROSS_TENANT_STATEMENTS,
        marker: CROSS_TENANT_MARKER,
      });
      assert.deepEqual(report.spread, [
        { query: 'SELECT count(*) FROM invoices', tables: ['invoices'] },
      ]);
      const tenantTables = [...(await layoutOf(admin))]
        .filter(([, layout]) => layout.kind === 'p')
        .map(([table]) => table)
        .sort();
      assert.deepEqual([...report.tablesSeen].sort(), tenantTables);
      // The worker's claim, the one statement that spans tenants by design, ran and was exempt.
      assert.ok(report.crossTenant.some((q) => q.includes('FOR UPDATE SKIP LOCKED')));
      assert.ok(report.checked > 100, `only ${report.checked} statements checked`);
      assert.ok(
        report.prunedAtRunTime > report.checked / 2,
        'generic plans were not pruned at run time',
      );
      console.error(
        `partitions: ${report.checked} statements on ${tenantTables.length} partitioned tables, ` +
          `each on one partition (${report.prunedAtRunTime} pruned at run time); ` +
          `${report.crossTenant.length} cross-tenant by design`,
      );
    } finally {
      collected.stop();
      await admin.end();
    }
  });
});
