// Databases for the reliability scenarios: a fresh migrated database on a PostgreSQL server
// the run already has, a PostgreSQL server a scenario owns (so it can stop and start it), and
// a checksum of every table (to prove a rejected request changed nothing).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDatabase, dropDatabase } from '../../src/db/admin.ts';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { inSnapshot, type Db } from '../../src/db/pool.ts';
import { SCOPES } from '../../src/keys/scopes.ts';
import { writtenValue } from '../../src/db/unit-of-work.ts';
import { createApiKey, operator } from '../../src/keys/service.ts';
import { createTenant } from '../../src/tenants/service.ts';
import type { Environment } from '../../src/tenancy.ts';
import { testPartitions, testPool, waitUntil } from '../helpers.ts';

export interface ScratchDatabase {
  url: string;
  /** A small pool for the scenario's own set-up and checks. */
  db: Db;
  drop(): Promise<void>;
}

/** A new, migrated database on the server at `adminUrl`; `drop()` removes it. */
export async function createScratchDatabase(adminUrl: string): Promise<ScratchDatabase> {
  const name = `billing_rel_${randomBytes(6).toString('hex')}`;
  const url = await createDatabase(adminUrl, name, { tenantPartitions: testPartitions() });
  const db = testPool(url, 4);
  await migrate(db);
  return {
    url,
    db,
    async drop() {
      await db.end().catch(() => undefined);
      await dropDatabase(adminUrl, name).catch(() => undefined);
    },
  };
}

/**
 * A free TCP port on 127.0.0.1 in [from, to]. The range lies below Linux's ephemeral ports
 * (32768–60999), which the kernel hands to every listener on port 0 and every outgoing
 * connection: a port from it could be taken between this probe and the caller's bind.
 */
export async function freePort(from = 21000, to = 29999): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = from + Math.floor(Math.random() * (to - from + 1));
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${from}-${to}`);
}

export interface OwnedPostgres {
  /** Admin URL (database `postgres`). */
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  destroy(): Promise<void>;
}

/**
 * Test files run side by side, and another one may bind the probed port while this one
 * initialises its cluster (seconds): then the start is tried again on another port.
 */
async function startOnFreePort(dataDir: string) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return { port, server: await startEmbeddedDatabase(dataDir, port) };
    } catch (error) {
      if (attempt === 3 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

/** An embedded PostgreSQL in a temporary directory on a free port, owned by the caller. */
export async function startOwnedPostgres(): Promise<OwnedPostgres> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'billing-rel-pg-'));
  const first = await startOnFreePort(dataDir);
  const port = first.port;
  let server: EmbeddedDatabase | undefined = first.server;
  const url = server.url;
  return {
    url,
    port,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async start() {
      if (!server) server = await startEmbeddedDatabase(dataDir, port);
    },
    async destroy() {
      await server?.stop().catch(() => undefined);
      server = undefined;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ScenarioKey {
  tenantId: string;
  environment: Environment;
  secret: string;
}

/** A tenant and a key with these scopes (every scope by default), made directly in the db. */
export async function tenantKey(
  db: Db,
  options: { environment?: Environment; tenantId?: string; scopes?: readonly string[] } = {},
): Promise<ScenarioKey> {
  const tenantId =
    options.tenantId ??
    (await createTenant(db, `Reliability ${randomBytes(3).toString('hex')}`)).id;
  const environment = options.environment ?? 'test';
  const key = writtenValue(
    await createApiKey(
      db,
      { actor: operator(tenantId, environment) },
      { scopes: options.scopes ?? [...SCOPES] },
    ),
  );
  return { tenantId, environment, secret: key.secret };
}

/**
 * A function that returns the row count and an md5 of the rows of every table, keyed by table
 * name. `api_keys.last_used_at` is left out: the key verifier writes it in the background.
 *
 * Reading every table is the cost of a checksum (6 ms on the migrated schema, more when it is
 * partitioned), and the fuzz scenario takes one after each of its 4,000 cases, most of which
 * write nothing. So every table of the database gets a statement-level trigger that advances a
 * sequence whenever an insert, update, delete or truncate runs on it, committed or not (a
 * sequence is not rolled back): while the sequence stands where it stood at the last checksum,
 * no statement has changed a table since, and that checksum is returned without reading them.
 * The server answers a request after its commit, so a request's writes have advanced the
 * sequence by the time the next checksum reads it.
 */
export async function checksummer(db: Db): Promise<() => Promise<Map<string, string>>> {
  // Every table once: a partitioned table's rows are read through it, not its partitions
  // again (BILLING_PARTITIONS: a partition is a table of its own in the catalogue, and reading
  // each twice made a checksum of the partitioned schema five times slower).
  const { rows: tables } = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY c.relname`,
  );
  const sql = tables
    .map(
      ({ name }) =>
        `SELECT ${pg.escapeLiteral(name)} AS name, count(*) || ':' ||
                md5(coalesce(string_agg(j, ',' ORDER BY j), '')) AS sum
           FROM (SELECT (to_jsonb(t) - 'last_used_at')::text AS j FROM ${pg.escapeIdentifier(name)} t) s`,
    )
    .join('\nUNION ALL\n');
  await db.query(`CREATE SEQUENCE reliability_writes`);
  await db.query(`CREATE FUNCTION reliability_write() RETURNS trigger LANGUAGE plpgsql AS
    $$ BEGIN PERFORM nextval('reliability_writes'); RETURN NULL; END $$`);
  for (const { name } of tables) {
    await db.query(`CREATE TRIGGER reliability_write
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${pg.escapeIdentifier(name)}
      FOR EACH STATEMENT EXECUTE FUNCTION reliability_write()`);
  }
  const writes = async () =>
    // A new sequence's first value is its start value too: `is_called` tells the two apart.
    (
      await db.query<{ n: string }>(
        `SELECT last_value || ':' || is_called AS n FROM reliability_writes`,
      )
    ).rows[0]!.n;
  let last: { writes: string; sums: Map<string, string> } | undefined;
  // The fuzz scenario takes a checksum after every case, thousands of times: the statement is
  // prepared once (planning it over 8 partitions a table took 60 ms), and run without parallel
  // workers (on tables this small, starting them took 80 ms of the 110 ms a checksum cost on
  // the partitioned schema; 2 ms without).
  return async () => {
    const before = await writes();
    if (last?.writes === before) return last.sums;
    const rows = await inSnapshot(db, async (tx) => {
      await tx.query('SET LOCAL max_parallel_workers_per_gather = 0');
      const result = await tx.query<{ name: string; sum: string }>({
        name: 'reliability-checksum',
        text: sql,
      });
      return result.rows;
    });
    last = { writes: before, sums: new Map(rows.map((r) => [r.name, r.sum])) };
    return last.sums;
  };
}

/** The tables whose checksum differs, e.g. `customers (3:ab… → 4:cd…)`. */
export function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names]
    .filter((n) => before.get(n) !== after.get(n))
    .map((n) => `${n} (${before.get(n)?.split(':')[0]} → ${after.get(n)?.split(':')[0]} rows)`);
}

/** Waits (10 s at most) until `n` requests of the API wait for a lock; returns how many do. */
export async function waitForLockWaiters(db: Db, n: number): Promise<number> {
  let waiting = 0;
  await waitUntil(
    async () => {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE application_name = 'billing-api' AND wait_event_type = 'Lock'`,
      );
      waiting = rows[0]?.n ?? 0;
      return waiting >= n;
    },
    10_000,
    20,
  );
  return waiting;
}
