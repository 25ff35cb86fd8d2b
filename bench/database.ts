// The PostgreSQL server the benchmarks run on: DATABASE_URL's, or an embedded one under
// ./data/bench-pg (BENCH_PG_PORT, default 54349). Each benchmark makes its own databases there.
import pg from 'pg';
import { startEmbeddedDatabase } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Db } from '../src/db/pool.ts';
import { SCOPES } from '../src/keys/scopes.ts';
import { createApiKey, createTenant } from '../src/keys/service.ts';

export interface BenchServer {
  /** The server's URL (its default database). */
  url: string;
  external: boolean;
  stop(): Promise<void>;
}

export async function benchServer(): Promise<BenchServer> {
  const external = process.env.DATABASE_URL;
  if (external) return { url: external, external: true, stop: async () => undefined };
  const embedded = await startEmbeddedDatabase(
    './data/bench-pg',
    Number(process.env.BENCH_PG_PORT ?? 54349),
    (m) => console.error(m),
  );
  return { url: embedded.url, external: false, stop: embedded.stop };
}

/** `url` with its database replaced by `name`. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Runs one statement (CREATE / DROP DATABASE) on `url`. */
async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(sql);
  await client.end();
}

/** A new, empty database `name` on the server (a run's leftover is dropped first): its URL. */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  await dropDatabase(serverUrl, name);
  await admin(serverUrl, `CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  return withDatabase(serverUrl, name);
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await admin(serverUrl, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
}

/** Migrates the database and makes a tenant with a test key holding every scope. */
export async function benchTenant(db: Db): Promise<{ tenantId: string; secret: string }> {
  await migrate(db);
  const tenant = await createTenant(db, 'Bench Inc');
  const key = await createApiKey(
    db,
    { tenantId: tenant.id, environment: 'test', scopes: [...SCOPES] },
    null,
  );
  return { tenantId: tenant.id, secret: key.secret };
}
