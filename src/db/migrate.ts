// Versioned SQL migrations (src/db/migrations/NNNN_name.sql), each applied in its own
// transaction. An advisory lock serialises instances that start at the same time: the second
// waits, then finds nothing left to do.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './pool.ts';

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

/** Applies what is missing; returns the names of the migrations it applied. */
export async function migrate(db: Db): Promise<string[]> {
  const migrations = await loadMigrations();
  const client = await db.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>(
      'SELECT version FROM schema_migrations',
    );
    const done = new Set(rows.map((r) => r.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(
          `migration ${migration.version}_${migration.name} failed: ${String(error)}`,
        );
      }
      applied.push(`${migration.version}_${migration.name}`);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
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
