// Hash partitioning of the tenant tables by tenant_id, with PostgreSQL's own declarative
// partitioning. It holds the schema to the key rules Citus would (every unique key must include
// the partition key) and shows which queries stay within one tenant's partition, on a single
// server: the proof, short of Citus itself, that the data model shards by tenant.
//
// A database asks for it with a setting of its own, so every process that migrates it (the
// servers, the CLI, a worker) keeps the same layout:
//   ALTER DATABASE billing SET billing.tenant_partitions = '8';
// The migrator then converts each tenant table that is not partitioned yet (after every run,
// so tables that later migrations add are converted too), in one transaction: the same columns,
// defaults, constraints, indexes, triggers and foreign keys, under their own names, with the
// rows moved over. Later migrations apply on top as on plain tables (ADD COLUMN, CREATE INDEX
// and constraints propagate to the partitions); the number of partitions is fixed once chosen.
import pg from 'pg';
import type { Queryable } from './pool.ts';
import { DISTRIBUTION_COLUMN, REFERENCE_TABLES } from './sharding.ts';

/** The database setting that asks for hash partitions (a count from 1 to 1024; unset: none). */
export const TENANT_PARTITIONS_SETTING = 'billing.tenant_partitions';
const MAX_PARTITIONS = 1024;

/** The partitions the database asks for, 0 when it asks for none. */
export async function wantedTenantPartitions(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ value: string | null }>(
    'SELECT current_setting($1, true) AS value',
    [TENANT_PARTITIONS_SETTING],
  );
  const value = rows[0]?.value ?? '';
  if (value === '') return 0;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_PARTITIONS) {
    throw new Error(
      `${TENANT_PARTITIONS_SETTING} = '${value}' must be a number of partitions from 1 to ${MAX_PARTITIONS}`,
    );
  }
  return Number(value);
}

interface TableToConvert {
  oid: number;
  name: string;
  comment: string | null;
  unsupported: string | null;
}

interface Definition {
  name: string;
  definition: string;
}

// Plain tables of the public schema that hold tenants' rows. A feature the copy below would
// lose (identity or serial columns, row security, storage options) is named, and the
// conversion refused, rather than dropped silently.
const TABLES_SQL = `
  SELECT c.oid::int AS oid, c.relname AS name, obj_description(c.oid, 'pg_class') AS comment,
         CASE
           WHEN EXISTS (SELECT 1 FROM pg_attribute a
                         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                           AND a.attidentity <> '') THEN 'an identity column'
           WHEN EXISTS (SELECT 1 FROM pg_depend d
                         WHERE d.refobjid = c.oid AND d.classid = 'pg_class'::regclass
                           AND d.deptype = 'a'
                           AND (SELECT relkind FROM pg_class s WHERE s.oid = d.objid) = 'S')
             THEN 'a serial column'
           WHEN c.relrowsecurity THEN 'row-level security'
           WHEN c.reloptions IS NOT NULL THEN 'storage options'
         END AS unsupported
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relkind = 'r' AND NOT c.relispartition
     AND EXISTS (SELECT 1 FROM pg_attribute a
                  WHERE a.attrelid = c.oid AND a.attname = $1 AND NOT a.attisdropped)
     AND NOT c.relname = ANY($2::text[])
   ORDER BY c.relname`;

// Foreign keys from or to the tables (declared ones: not a partitioned table's copies).
const FOREIGN_KEYS_SQL = `
  SELECT conrelid::regclass::text AS table, conname AS name,
         pg_get_constraintdef(oid) AS definition
    FROM pg_constraint
   WHERE contype = 'f' AND conparentid = 0
     AND (conrelid = ANY($1::oid[]) OR confrelid = ANY($1::oid[]))
   ORDER BY conname`;

// Primary key first: the unique keys and checks after it, in name order.
const CONSTRAINTS_SQL = `
  SELECT conname AS name, pg_get_constraintdef(oid) AS definition
    FROM pg_constraint
   WHERE conrelid = $1 AND contype IN ('p', 'u', 'c', 'x')
   ORDER BY contype <> 'p', conname`;

// Indexes of their own (those of primary keys and unique constraints come with them).
const INDEXES_SQL = `
  SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
   WHERE i.indrelid = $1
     AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid
                        AND k.conrelid = i.indrelid AND k.contype IN ('p', 'u', 'x'))
   ORDER BY c.relname`;

const TRIGGERS_SQL = `
  SELECT tgname AS name, pg_get_triggerdef(oid) AS definition
    FROM pg_trigger WHERE tgrelid = $1 AND NOT tgisinternal ORDER BY tgname`;

/**
 * Converts every tenant table that is not partitioned yet into `partitions` hash partitions by
 * tenant_id; returns the names of the tables converted. Runs in the caller's transaction, which
 * should hold the migration lock.
 */
export async function partitionTenantTables(tx: Queryable, partitions: number): Promise<string[]> {
  const { rows: tables } = await tx.query<TableToConvert>(TABLES_SQL, [
    DISTRIBUTION_COLUMN,
    Object.keys(REFERENCE_TABLES),
  ]);
  if (tables.length === 0) {
    await namePartitionIndexes(tx);
    return [];
  }
  const refused = tables.find((t) => t.unsupported !== null);
  if (refused) {
    throw new Error(
      `table ${refused.name} cannot be hash-partitioned here: it has ${refused.unsupported}`,
    );
  }
  // Moving every row of a large table takes longer than a request's statement timeout.
  await tx.query('SET LOCAL statement_timeout = 0');

  // Everything is read before anything changes: the definitions name the tables as they are.
  const oids = tables.map((t) => t.oid);
  const { rows: foreignKeys } = await tx.query<Definition & { table: string }>(FOREIGN_KEYS_SQL, [
    oids,
  ]);
  const parts = [];
  for (const table of tables) {
    parts.push({
      table,
      constraints: (await tx.query<Definition>(CONSTRAINTS_SQL, [table.oid])).rows,
      indexes: (await tx.query<Definition>(INDEXES_SQL, [table.oid])).rows,
      triggers: (await tx.query<Definition>(TRIGGERS_SQL, [table.oid])).rows,
    });
  }

  const id = (name: string) => pg.escapeIdentifier(name);
  // A foreign key needs both of its tables: dropped first, made again once all are converted.
  for (const key of foreignKeys) {
    await tx.query(`ALTER TABLE ${key.table} DROP CONSTRAINT ${id(key.name)}`);
  }
  for (const { table, constraints, indexes, triggers } of parts) {
    const old = id(`${table.name}_unpartitioned`);
    await tx.query(`ALTER TABLE ${id(table.name)} RENAME TO ${old}`);
    // Columns with their types, collations, NOT NULL, defaults, storage and comments; the
    // constraints and indexes are made below under their own names.
    await tx.query(
      `CREATE TABLE ${id(table.name)} (LIKE ${old} INCLUDING DEFAULTS INCLUDING GENERATED
         INCLUDING STORAGE INCLUDING COMPRESSION INCLUDING COMMENTS INCLUDING STATISTICS)
       PARTITION BY HASH (${id(DISTRIBUTION_COLUMN)})`,
    );
    for (let remainder = 0; remainder < partitions; remainder++) {
      await tx.query(
        `CREATE TABLE ${id(`${table.name}_p${remainder}`)} PARTITION OF ${id(table.name)}
           FOR VALUES WITH (MODULUS ${partitions}, REMAINDER ${remainder})`,
      );
    }
    await tx.query(`INSERT INTO ${id(table.name)} SELECT * FROM ${old}`);
    await tx.query(`DROP TABLE ${old}`);
    for (const constraint of constraints) {
      await tx.query(
        `ALTER TABLE ${id(table.name)} ADD CONSTRAINT ${id(constraint.name)} ${constraint.definition}`,
      );
    }
    for (const index of indexes) await tx.query(index.definition);
    for (const trigger of triggers) await tx.query(trigger.definition);
    if (table.comment !== null) {
      await tx.query(`COMMENT ON TABLE ${id(table.name)} IS ${pg.escapeLiteral(table.comment)}`);
    }
  }
  for (const key of foreignKeys) {
    await tx.query(`ALTER TABLE ${key.table} ADD CONSTRAINT ${id(key.name)} ${key.definition}`);
  }
  await namePartitionIndexes(tx);
  return tables.map((t) => t.name);
}

// Each partition's copy of an index, as PostgreSQL named it (invoices_p7_tenant_id_..._idx),
// and the name it gets: its parent's and the partition's number (invoices_number_p7), so that
// an error or a plan names the index a reader knows. Names longer than PostgreSQL keeps are
// left as they are.
const PARTITION_INDEXES_SQL = `
  SELECT child.relname AS name, parent.relname || '_' || substring(part.relname FROM '_(p[0-9]+)$') AS wanted
    FROM pg_inherits i
    JOIN pg_class child ON child.oid = i.inhrelid AND child.relkind = 'i'
    JOIN pg_class parent ON parent.oid = i.inhparent
    JOIN pg_index x ON x.indexrelid = child.oid
    JOIN pg_class part ON part.oid = x.indrelid
   WHERE child.relnamespace = 'public'::regnamespace AND part.relispartition
     AND part.relname ~ '_p[0-9]+$'
     AND child.relname <> parent.relname || '_' || substring(part.relname FROM '_(p[0-9]+)$')
     AND octet_length(parent.relname) + 1 + octet_length(substring(part.relname FROM '_(p[0-9]+)$')) < 64`;

/** Names the partitions' indexes after their parents' (also those later migrations made). */
async function namePartitionIndexes(tx: Queryable): Promise<void> {
  const { rows } = await tx.query<{ name: string; wanted: string }>(PARTITION_INDEXES_SQL);
  for (const index of rows) {
    await tx.query(
      `ALTER INDEX ${pg.escapeIdentifier(index.name)} RENAME TO ${pg.escapeIdentifier(index.wanted)}`,
    );
  }
}
