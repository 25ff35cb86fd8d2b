// The PostgreSQL server the benchmarks run on: DATABASE_URL's, or an embedded one under
// ./data/bench-pg on a port of its own (BENCH_PG_PORT, default 54349), so it never meets the
// development server's data. Each benchmark makes its own databases there and drops them.
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { startEmbeddedDatabase } from '../src/db/embedded.ts';

export interface BenchServer {
  /** The server's URL (its default database). */
  url: string;
  external: boolean;
  stop(): Promise<void>;
}

export async function benchServer(log: (message: string) => void): Promise<BenchServer> {
  const external = process.env.DATABASE_URL;
  if (external) return { url: external, external: true, stop: async () => undefined };
  const embedded = await startEmbeddedDatabase(
    './data/bench-pg',
    Number(process.env.BENCH_PG_PORT ?? 54349),
    log,
  );
  return { url: embedded.url, external: false, stop: embedded.stop };
}

/** `url` with its database replaced by `name`. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Runs one statement on a connection of its own; its rows. */
export async function queryOnce<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await queryOnce(serverUrl, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
}

/** A new, empty database `name` on the server (a run's leftover is dropped first): its URL. */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  await dropDatabase(serverUrl, name);
  await queryOnce(serverUrl, `CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  return withDatabase(serverUrl, name);
}

/**
 * The process id of the server's postmaster, when the server runs on this machine: the parent
 * of the backend that serves a connection (every backend is a child of the postmaster), read
 * while that connection is open. Null when it is elsewhere (no such process here, or one that
 * is not PostgreSQL).
 */
export async function postmasterPid(serverUrl: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const stat = await readFile(`/proc/${rows[0]!.pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const comm = await readFile(`/proc/${ppid}/comm`, 'utf8');
    return /postgres|postmaster/.test(comm) ? ppid : null;
  } catch {
    return null;
  } finally {
    await client.end();
  }
}
