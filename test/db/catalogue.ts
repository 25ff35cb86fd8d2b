// Reads PostgreSQL's catalogue and lists every way the schema breaks the sharding rules of
// src/db/sharding.ts: what Citus (distributed by tenant_id) and hash partitioning by tenant_id
// both demand, and what keeps every tenant's rows apart by construction.
import type { Queryable } from '../../src/db/pool.ts';

export interface ShardingRules {
  distributionColumn: string;
  referenceTables: Readonly<Record<string, string>>;
  crossTenantIndexes: Readonly<Record<string, string>>;
}

interface TableRow {
  oid: number;
  name: string;
  /** attnum of the distribution column, or null. */
  tenant_attnum: number | null;
  /** Key columns of the primary key, or null without one. */
  pk_columns: number[] | null;
}

interface IndexRow {
  table_oid: number;
  name: string;
  unique: boolean;
  exclusion: boolean;
  key_columns: number[];
}

interface ForeignKeyRow {
  name: string;
  table_oid: number;
  referenced_oid: number;
  columns: number[];
  referenced_columns: number[];
}

// Tables of the public schema; a partition is judged as part of its parent, and its
// constraints and indexes are its parent's copies.
const TABLES_SQL = `
  SELECT c.oid::int AS oid, c.relname AS name,
         (SELECT a.attnum FROM pg_attribute a
           WHERE a.attrelid = c.oid AND a.attname = $1 AND NOT a.attisdropped)::int AS tenant_attnum,
         (SELECT k.conkey::int[] FROM pg_constraint k
           WHERE k.conrelid = c.oid AND k.contype = 'p') AS pk_columns
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
   ORDER BY c.relname`;

// Every index (unique constraints and primary keys are unique indexes), with its key columns
// (INCLUDE columns and expressions, attnum 0, left out).
const INDEXES_SQL = `
  SELECT i.indrelid::int AS table_oid, ic.relname AS name, i.indisunique AS unique,
         i.indisexclusion AS exclusion,
         ARRAY(SELECT k FROM unnest((i.indkey::int2[])[0:i.indnkeyatts - 1]) k WHERE k <> 0)::int[]
           AS key_columns
    FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
   WHERE i.indrelid = ANY($1::oid[])
   ORDER BY ic.relname`;

// Foreign keys as declared (a partitioned table's copies on its partitions left out).
const FOREIGN_KEYS_SQL = `
  SELECT conname AS name, conrelid::int AS table_oid, confrelid::int AS referenced_oid,
         conkey::int[] AS columns, confkey::int[] AS referenced_columns
    FROM pg_constraint
   WHERE contype = 'f' AND conparentid = 0
     AND (conrelid = ANY($1::oid[]) OR confrelid = ANY($1::oid[]))
   ORDER BY conname`;

/** The rules' violations in the database `db` is connected to; empty when it keeps them. */
export async function shardingViolations(db: Queryable, rules: ShardingRules): Promise<string[]> {
  const tenant = rules.distributionColumn;
  const { rows: tables } = await db.query<TableRow>(TABLES_SQL, [tenant]);
  const oids = tables.map((t) => t.oid);
  const { rows: indexes } = await db.query<IndexRow>(INDEXES_SQL, [oids]);
  const { rows: foreignKeys } = await db.query<ForeignKeyRow>(FOREIGN_KEYS_SQL, [oids]);

  const byOid = new Map(tables.map((t) => [t.oid, t]));
  const isReference = (t: TableRow) => Object.hasOwn(rules.referenceTables, t.name);
  const isTenantTable = (t: TableRow) => !isReference(t) && t.tenant_attnum !== null;
  const problems: string[] = [];

  for (const table of tables) {
    if (isReference(table)) continue;
    if (table.tenant_attnum === null) {
      problems.push(
        `table ${table.name} has no ${tenant} column and is not a reference table ` +
          `(src/db/sharding.ts)`,
      );
    } else if (table.pk_columns === null) {
      problems.push(`table ${table.name} has no primary key`);
    } else if (table.pk_columns[0] !== table.tenant_attnum) {
      problems.push(`table ${table.name}: its primary key does not lead with ${tenant}`);
    }
  }

  for (const index of indexes) {
    const table = byOid.get(index.table_oid)!;
    if (!isTenantTable(table)) continue;
    const attnum = table.tenant_attnum!;
    if ((index.unique || index.exclusion) && !index.key_columns.includes(attnum)) {
      problems.push(`table ${table.name}: unique index ${index.name} does not include ${tenant}`);
    } else if (
      !index.unique &&
      index.key_columns[0] !== attnum &&
      !Object.hasOwn(rules.crossTenantIndexes, index.name)
    ) {
      problems.push(
        `table ${table.name}: index ${index.name} does not lead with ${tenant} and is not a ` +
          `documented cross-tenant index (src/db/sharding.ts)`,
      );
    }
  }

  for (const key of foreignKeys) {
    const from = byOid.get(key.table_oid);
    const to = byOid.get(key.referenced_oid);
    if (from === undefined || to === undefined) continue;
    if (isReference(from) && !isReference(to)) {
      problems.push(
        `reference table ${from.name}: foreign key ${key.name} refers to ${to.name}, which is ` +
          `not a reference table`,
      );
    } else if (isTenantTable(from) && isTenantTable(to)) {
      const at = key.columns.indexOf(from.tenant_attnum!);
      if (at === -1 || key.referenced_columns[at] !== to.tenant_attnum) {
        problems.push(
          `table ${from.name}: foreign key ${key.name} to ${to.name} does not match ` +
            `${tenant} to ${tenant}`,
        );
      }
    }
  }

  // The lists must stay true: a name there that the schema no longer has is a stale promise.
  const tableNames = new Set(tables.map((t) => t.name));
  for (const name of Object.keys(rules.referenceTables)) {
    if (!tableNames.has(name)) problems.push(`reference table ${name} does not exist`);
  }
  const indexNames = new Set(indexes.map((i) => i.name));
  for (const name of Object.keys(rules.crossTenantIndexes)) {
    if (!indexNames.has(name)) problems.push(`cross-tenant index ${name} does not exist`);
  }
  return problems;
}
