// The PostgreSQL server the benchmarks run on: DATABASE_URL's, or an embedded one under
// ./data/bench-pg (BENCH_PG_PORT, default 54349). Each benchmark makes its own databases there.
import { createDatabase, dropDatabase } from '../src/db/admin.ts';
import { startEmbeddedDatabase } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Db } from '../src/db/pool.ts';
import { bootstrapFirstTenant } from '../src/keys/bootstrap.ts';

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

/** A new, empty database `name` on the server (a run's leftover is dropped first): its URL. */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  await dropDatabase(serverUrl, name);
  return createDatabase(serverUrl, name);
}

/**
 * Migrates a fresh database and makes its tenant with a test key holding every scope, as the
 * server's first start does.
 */
export async function benchTenant(db: Db): Promise<{ tenantId: string; secret: string }> {
  await migrate(db);
  const key = await bootstrapFirstTenant(db);
  if (key === null) throw new Error('the bench database is not fresh: it has a tenant already');
  return { tenantId: key.tenantId, secret: key.secret };
}
