// The schema keeps the promise of the contract's Scale-out section: every table is sharded by
// tenant or a documented reference table, and every key of a tenant table includes tenant_id,
// read from PostgreSQL's own catalogue of a freshly migrated database.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import {
  CROSS_TENANT_INDEXES,
  DISTRIBUTION_COLUMN,
  REFERENCE_TABLES,
} from '../../src/db/sharding.ts';
import { createMigratedDatabase, createTestDatabase, testPool } from '../helpers.ts';
import { shardingViolations, type ShardingRules } from './catalogue.ts';

const rules: ShardingRules = {
  distributionColumn: DISTRIBUTION_COLUMN,
  referenceTables: REFERENCE_TABLES,
  crossTenantIndexes: CROSS_TENANT_INDEXES,
};

describe('sharding by tenant', () => {
  it('every table is tenant-keyed or a reference table, and every key includes tenant_id', async () => {
    const { db } = await createMigratedDatabase();
    assert.deepEqual(await shardingViolations(db, rules), []);
    // The rules were applied to the real schema, not to an empty read of it.
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
        WHERE s.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = $1)
          AND NOT c.relname = ANY($2::text[])`,
      [DISTRIBUTION_COLUMN, Object.keys(REFERENCE_TABLES)],
    );
    assert.ok(rows[0]!.n >= 15, `only ${rows[0]!.n} tenant tables`);
  });

  it('names every reference table and cross-tenant index in docs/scaling.md', async () => {
    const doc = await readFile(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
    for (const name of [...Object.keys(REFERENCE_TABLES), ...Object.keys(CROSS_TENANT_INDEXES)]) {
      assert.ok(doc.includes(`\`${name}\``), `docs/scaling.md does not name ${name}`);
    }
  });

  it('fails when a later migration adds a table or a key that breaks the rules', async () => {
    // Plain tables: hash partitioning would refuse some of these keys outright.
    const url = await createTestDatabase({ tenantPartitions: 0 });
    const db = testPool(url, 1);
    try {
      await migrate(db);
      await db.query(`
        -- No tenant_id, and not on the list.
        CREATE TABLE audit_entries (id text PRIMARY KEY, note text);
        -- tenant_id, but it does not lead the primary key.
        CREATE TABLE notes (tenant_id text NOT NULL, id text NOT NULL, PRIMARY KEY (id, tenant_id));
        -- No primary key at all.
        CREATE TABLE drafts (tenant_id text NOT NULL, body text);
        -- A unique key across tenants.
        ALTER TABLE customers ADD CONSTRAINT customers_email_key UNIQUE (environment, email);
        CREATE UNIQUE INDEX invoices_by_number ON invoices (number);
        -- An index that does not lead with tenant_id and is not documented as cross-tenant.
        CREATE INDEX customers_by_name ON customers (name);
        -- A foreign key to another tenant's row.
        CREATE TABLE referrals (
          tenant_id text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL,
          referred_tenant_id text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
          PRIMARY KEY (tenant_id, id));
        -- A reference table that refers to a tenant table.
        CREATE TABLE country_names (code text PRIMARY KEY,
          tenant_id text COLLATE "C" REFERENCES tenants (tenant_id));`);
      const extended: ShardingRules = {
        ...rules,
        referenceTables: { ...rules.referenceTables, country_names: 'test', currencies: 'test' },
        crossTenantIndexes: { ...rules.crossTenantIndexes, invoices_by_age: 'test' },
      };
      assert.deepEqual((await shardingViolations(db, extended)).sort(), [
        'cross-tenant index invoices_by_age does not exist',
        'reference table country_names: foreign key country_names_tenant_id_fkey refers to tenants, which is not a reference table',
        'reference table currencies does not exist',
        'table audit_entries has no tenant_id column and is not a reference table (src/db/sharding.ts)',
        'table customers: index customers_by_name does not lead with tenant_id and is not a documented cross-tenant index (src/db/sharding.ts)',
        'table customers: unique index customers_email_key does not include tenant_id',
        'table drafts has no primary key',
        'table invoices: unique index invoices_by_number does not include tenant_id',
        'table notes: its primary key does not lead with tenant_id',
        'table referrals: foreign key referrals_referred_tenant_id_fkey to tenants does not match tenant_id to tenant_id',
      ]);
    } finally {
      await db.end();
    }
  });
});
