// Versioned SQL migrations (src/db/migrations/NNNN_name.sql), each applied in its own
// transaction. An advisory lock serialises instances that start at the same time: the second
// waits, then finds nothing left to do. The lock is the transaction's, not the session's, so
// it holds through a transaction pooler too (PgBouncer may run each transaction of one client
// on another server connection, where a session lock would be taken and never released).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { partitionTenantTables, wantedTenantPartitions } from './partitioning.ts';
import type { Db, Tx } from './pool.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const MIGRATION_LOCK = 7_340_201; // any constant shared by every instance

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export async function loadMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      sql: await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'),
    })),
  );
}

const LEDGER_SQL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now())`;

/** The versions applied so far, read without the lock (nothing when the ledger is missing). */
async function appliedVersions(client: Tx): Promise<Set<number>> {
  const { rows } = await client.query<{ present: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
  );
  if (!rows[0]?.present) return new Set();
  const { rows: versions } = await client.query<{ version: number }>(
    'SELECT version FROM schema_migrations',
  );
  return new Set(versions.map((r) => r.version));
}

/** Runs `work` in a transaction that holds the migration lock. */
async function underMigrationLock<T>(client: Tx, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Applies what is missing; returns the names of the migrations it applied. Then, if the
 * database asks for hash partitions by tenant (src/db/partitioning.ts), converts the tenant
 * tables that are not partitioned yet.
 */
export async function migrate(db: Db): Promise<string[]> {
  const migrations = await loadMigrations();
  const client = await db.connect();
  const applied: string[] = [];
  try {
    const seen = await appliedVersions(client);
    for (const migration of migrations) {
      if (seen.has(migration.version)) continue;
      // Checked again under the lock: another instance may have applied it meanwhile.
      const done = await underMigrationLock(client, async () => {
        await client.query(LEDGER_SQL);
        const { rowCount } = await client.query(
          'SELECT 1 FROM schema_migrations WHERE version = $1',
          [migration.version],
        );
        if (rowCount !== 0) return true;
        try {
          await client.query(migration.sql);
        } catch (error) {
          throw new Error(
            `migration ${migration.version}_${migration.name} failed: ${String(error)}`,
          );
        }
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        return false;
      });
      if (!done) applied.push(`${migration.version}_${migration.name}`);
    }
    const partitions = await wantedTenantPartitions(client);
    if (partitions > 0) {
      await underMigrationLock(client, () => partitionTenantTables(client, partitions));
    }
  } finally {
    client.release();
  }
  return applied;
}

/** True when every migration this build knows has been applied (for /readyz). */
export async function migrationsApplied(db: Db): Promise<boolean> {
  const migrations = await loadMigrations();
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM schema_migrations WHERE version = ANY($1::int[])',
    [migrations.map((m) => m.version)],
  );
  return rows[0]?.n === migrations.length;
}
