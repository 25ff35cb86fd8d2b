// Test helpers: a fresh database per test file on the real PostgreSQL the run uses, the real
// server on it over real HTTP, and "a tenant with a key with these scopes".
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after } from 'node:test';
import { systemClock, type Clock } from '../src/clock.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { createDatabase, dropDatabase, withDatabase } from '../src/db/admin.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, type Db } from '../src/db/pool.ts';
import { SCOPES } from '../src/keys/scopes.ts';
import { writtenValue } from '../src/db/unit-of-work.ts';
import {
  createApiKey,
  operator,
  revokeApiKey,
  rotateApiKey,
  type ApiKey,
  type IssuedApiKey,
} from '../src/keys/service.ts';
import type { SettingsUpdate } from '../src/settings/schemas.ts';
import { updateSettings } from '../src/settings/service.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import type { Environment } from '../src/tenancy.ts';
import { createTenant } from '../src/tenants/service.ts';
import { installResponseValidation, registerApiOrigin } from './openapi/conformance.ts';

// Every response any test receives from the API is held to the OpenAPI document.
installResponseValidation();

// Servers a test file starts as child processes inherit the run's REDIS_URL: a key prefix of
// this file's own keeps another file's failed authentications from 127.0.0.1 (counted in Redis
// per address) from throttling them. Two files sharing the default prefix once made a CLI
// test's first request a 429.
process.env.REDIS_KEY_PREFIX = `billing-test-${randomBytes(6).toString('hex')}`;

function baseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`');
  return url;
}

/**
 * `url`'s database reached without the transaction pooler the run goes through (PgBouncer:
 * npm run test:pgbouncer), for what needs a session; `url` itself when the run has none, or
 * when `url` does not go through it (a server a scenario runs for itself).
 */
export function directUrl(url: string): string {
  const direct = process.env.TEST_DATABASE_DIRECT_URL;
  if (!direct || new URL(url).host !== new URL(baseUrl()).host) return url;
  return withDatabase(direct, new URL(url).pathname.slice(1));
}

/** The environment a child process (server, CLI, worker) needs to use `url`'s database. */
export function databaseEnv(url: string): { DATABASE_URL: string; DATABASE_DIRECT_URL: string } {
  return { DATABASE_URL: url, DATABASE_DIRECT_URL: directUrl(url) };
}

/**
 * Hash partitions per tenant table in the databases the tests make (BILLING_PARTITIONS; 0, the
 * default: plain tables). With them the whole suite runs on the layout that holds the schema
 * to Citus's key rules (src/db/partitioning.ts).
 */
export function testPartitions(): number {
  const raw = process.env.BILLING_PARTITIONS ?? '';
  if (raw === '') return 0;
  if (!/^\d+$/.test(raw)) throw new Error(`BILLING_PARTITIONS=${raw} must be a number`);
  return Number(raw);
}

/**
 * Creates a database for this test file, dropped when the file's tests end. Its tenant tables
 * are partitioned as the run asks, unless `tenantPartitions` says otherwise. It is a copy of
 * the run's migrated template (scripts/test.ts) when the run has one and the file asks for
 * neither an `empty` database nor its own partitions; otherwise empty, and the first server
 * started on it migrates it. A copy takes ~0.1 s where migrating takes 0.7 s, or 2–4 s
 * partitioned.
 */
export async function createTestDatabase(
  options: { tenantPartitions?: number; empty?: boolean } = {},
): Promise<string> {
  const name = `billing_test_${randomBytes(6).toString('hex')}`;
  const admin = directUrl(baseUrl());
  const template = process.env.TEST_TEMPLATE_DATABASE;
  const copy = template && !options.empty && options.tenantPartitions === undefined;
  await createDatabase(admin, name, {
    tenantPartitions: options.tenantPartitions ?? testPartitions(),
    ...(copy ? { template } : {}),
  });
  const servers: TestServer[] = [];
  serversOn.set(name, servers);
  after(async () => {
    // Its servers stop first (after-hooks run in the order they were added, this one before
    // theirs): behind PgBouncer, a query of a dropped database waits for a server connection
    // PgBouncer can no longer make, until query_wait_timeout (2 minutes), where PostgreSQL
    // itself would refuse it at once.
    for (const server of servers) await server.close().catch(() => undefined);
    await dropDatabase(admin, name);
  });
  return withDatabase(baseUrl(), name);
}

/** The servers started on each test database, by its name. */
const serversOn = new Map<string, TestServer[]>();

/**
 * A pool on a test database as the server would make it: through the run's transaction pooler
 * when there is one (then without startup parameters or named statements, which it refuses).
 */
export function testPool(url: string, max: number): Db {
  const pooler = directUrl(url) !== url;
  return createPool(url, max, { pooler, preparedStatements: !pooler });
}

/** A migrated database and a pool on it. */
export async function createMigratedDatabase(): Promise<{ url: string; db: Db }> {
  const url = await createTestDatabase();
  const db = testPool(url, 5);
  after(() => db.end());
  await migrate(db);
  return { url, db };
}

export function testConfig(databaseUrl: string, overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    databaseUrl,
    databaseDirectUrl: directUrl(databaseUrl),
    port: 0,
    logLevel: 'silent',
    // Tests make many quick requests with one key and present bad keys on purpose; the
    // rate-limit tests set these low themselves.
    rateLimitLive: 1_000_000,
    rateLimitTest: 1_000_000,
    authFailureLimit: 1_000_000,
    secretsKey: process.env.SECRETS_KEY,
    ...overrides,
  };
}

/**
 * A clock a test drives (startTestServer's `clock`): it stands still until moved, and what
 * sleeps on it (the worker's polls, dunning runs, purges) wakes when a move reaches its time.
 */
export interface DrivenClock extends Clock {
  advance(ms: number): void;
  set(at: Date): void;
  /** How many sleeps are waiting on this clock (a test can wait for the worker to settle). */
  sleepers(): number;
}

export function drivenClock(start: Date = new Date()): DrivenClock {
  let at = start.getTime();
  const sleeping = new Set<{ until: number; wake: () => void }>();
  const moved = () => {
    for (const sleeper of [...sleeping].sort((a, b) => a.until - b.until))
      if (sleeper.until <= at) sleeper.wake();
  };
  return {
    now: () => new Date(at),
    nowMs: () => at,
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        if (signal?.aborted) return resolve();
        const sleeper = {
          until: at + ms,
          wake: () => {
            sleeping.delete(sleeper);
            signal?.removeEventListener('abort', sleeper.wake);
            resolve();
          },
        };
        sleeping.add(sleeper);
        signal?.addEventListener('abort', sleeper.wake, { once: true });
        if (ms <= 0) sleeper.wake();
      }),
    advance: (ms) => {
      at += ms;
      moved();
    },
    set: (instant) => {
      at = instant.getTime();
      moved();
    },
    sleepers: () => sleeping.size,
  };
}

export interface TestServer extends RunningServer {
  db: Db;
  /** The clock the server reads the time from (the system clock unless the test gave one). */
  clock: Clock;
}

/**
 * Starts the real server on the given database; closed when the file's tests end. With a
 * `clock`, the server reads the time from it instead of the wall clock (src/clock.ts).
 */
export async function startTestServer(
  databaseUrl: string,
  overrides: Partial<Config> = {},
  logStream?: { write(line: string): void },
  clock?: Clock,
): Promise<TestServer> {
  const config = testConfig(databaseUrl, overrides);
  const server = await startServer(config, () => undefined, logStream, clock);
  registerApiOrigin(server.url);
  // Closed once, by whichever comes first: this hook, or its database's.
  let closing: Promise<void> | undefined;
  const close = server.close.bind(server);
  const started = Object.assign(server, {
    db: server.database.db,
    clock: clock ?? systemClock,
    close: () => (closing ??= close()),
  });
  serversOn.get(new URL(databaseUrl).pathname.slice(1))?.push(started);
  after(() => started.close());
  return started;
}

/** A fresh migrated database with one server on it. */
export async function startTestApp(overrides: Partial<Config> = {}): Promise<TestServer> {
  const url = await createTestDatabase();
  return startTestServer(url, overrides);
}

export interface TestKey {
  tenantId: string;
  environment: Environment;
  keyId: string;
  secret: string;
}

export async function createTenantWithKey(
  db: Db,
  options: { scopes?: readonly string[]; environment?: Environment; tenantId?: string } = {},
): Promise<TestKey> {
  const tenantId =
    options.tenantId ?? (await createTenant(db, `Tenant ${randomBytes(3).toString('hex')}`)).id;
  const environment = options.environment ?? 'test';
  const key = writtenValue(
    await createApiKey(
      db,
      { actor: operator(tenantId, environment) },
      { scopes: options.scopes ?? [...SCOPES] },
    ),
  );
  return { tenantId, environment, keyId: key.id, secret: key.secret };
}

/** Revokes a key as the operator does (billing keys revoke). */
export async function revokeKey(db: Db, key: TestKey): Promise<ApiKey> {
  const request = { actor: operator(key.tenantId, key.environment) };
  return writtenValue(await revokeApiKey(db, request, key.keyId));
}

/** Rotates a key as the operator does (billing keys rotate). */
export async function rotateKey(
  db: Db,
  key: TestKey,
  options: { expireOldInSeconds?: number | null } = {},
  clock: Clock = systemClock,
): Promise<IssuedApiKey> {
  const request = { actor: operator(key.tenantId, key.environment) };
  return writtenValue(await rotateApiKey(db, request, key.keyId, options, clock));
}

/** Changes a tenant's settings as the operator does (billing tenants update), in one or both environments. */
export async function setSettings(
  db: Db,
  tenantId: string,
  patch: SettingsUpdate,
  environments: readonly Environment[] = ['live', 'test'],
): Promise<void> {
  for (const environment of environments) {
    await updateSettings(db, { actor: operator(tenantId, environment) }, patch);
  }
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/** Calls the API over real HTTP. */
export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: {
    key?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed as T };
}

/** A client bound to one server and one key. */
export function client(baseUrl: string, key: string) {
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) =>
      call<T>(baseUrl, 'GET', path, { key, headers }),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>(baseUrl, 'POST', path, { key, body, headers }),
    patch: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>(baseUrl, 'PATCH', path, { key, body, headers }),
    delete: <T = any>(path: string, headers?: Record<string, string>) =>
      call<T>(baseUrl, 'DELETE', path, { key, headers }),
  };
}

/**
 * Real waiting, for what only real time shows (a child process's or a socket's behaviour, a
 * load's pace): each caller says why. Time the server reads comes from a clock the test drives
 * (drivenClock), and a state the test expects is waited for (waitFor), never slept for.
 */
export { sleep };

/**
 * Polls `check` every `intervalMs` until it returns a truthy value; false once `timeoutMs` of
 * real time have passed without one (the bound a test gives an observable state to arrive).
 */
export async function waitUntil(
  check: () => unknown,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(intervalMs); // the poll of a bounded wait on a condition
  }
}

/** Polls until `check` returns a truthy value, and returns it; throws after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<NonNullable<T>> {
  let value: T | undefined;
  const seen = await waitUntil(async () => (value = await check()), timeoutMs, intervalMs);
  if (!seen) throw new Error(`timed out waiting for ${what}`);
  return value as NonNullable<T>;
}

/**
 * Runs a test's DDL (a trigger made or dropped) beside the server's own work. On a partitioned
 * table the DDL locks the partitions one by one, and a reader that the document worker or
 * another test runs at the same moment can lock them in the other order: PostgreSQL then
 * cancels one of the two (deadlock detected). The DDL is idempotent and tried again.
 */
export async function ddlBesideWork(db: Db, sql: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.query(sql);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
    }
  }
}
