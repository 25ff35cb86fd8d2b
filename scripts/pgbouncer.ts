// `npm run test:pgbouncer [-- test files]`: the suite through PgBouncer in transaction pooling
// mode, as a deployment with many instances would run it. PgBouncer (Debian's `pgbouncer`
// package; not an npm dependency) is started here on a free port from 6432, in front of the
// PostgreSQL server at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), with its
// pgbouncer.ini and userlist.txt written under ./data/pgbouncer. The tests then reach every
// database through PgBouncer, and DATABASE_DIRECT_URL (the server itself) serves what needs a
// session: LISTEN for key revocations, and making and dropping the tests' databases.
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';

const DIR = path.resolve('data/pgbouncer');
const server = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test');
const binary = process.env.PGBOUNCER ?? 'pgbouncer';

function fail(message: string): never {
  console.error(`test:pgbouncer: ${message}`);
  process.exit(2);
}

const version = spawnSync(binary, ['--version'], { encoding: 'utf8' });
if (version.error || version.status !== 0) {
  fail(`no ${binary} here: apt-get install -y pgbouncer (or set PGBOUNCER to its path)`);
}
console.error(`test:pgbouncer: ${version.stdout.split('\n')[0]}`);

async function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

let port = Number(process.env.PGBOUNCER_PORT ?? 6432);
while (!(await isFree(port))) port++;

const user = decodeURIComponent(server.username || 'postgres');
const password = decodeURIComponent(server.password);
const quoted = (s: string) => `"${s.replaceAll('"', '""')}"`;
// Every database name on the server, so each test file's own database is reachable. The
// session settings the app sends as startup parameters when it connects directly are set on
// each server connection instead: PgBouncer refuses those parameters from clients (1.18), and
// a SET of them from a client would stay on whichever server connection ran it. (In
// production they are better set for the app's role: docs/scaling.md.)
const ini = `[databases]
* = host=${server.hostname} port=${server.port || 5432} connect_query='SET statement_timeout = 15000'

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = ${password ? 'md5' : 'trust'}
auth_file = ${path.join(DIR, 'userlist.txt')}
pool_mode = transaction
admin_users = ${user}
; The suite runs three files at once; a reliability scenario holds 18 requests waiting on
; locks in the database at once, so a database's pool must let 20 through.
default_pool_size = 25
max_client_conn = 2000
server_idle_timeout = 30
; No max_prepared_statements (PgBouncer 1.21+): behind a pooler the app sends statements
; unnamed unless DATABASE_PREPARED_STATEMENTS=true.
logfile =
pidfile =
`;
await mkdir(DIR, { recursive: true });
await writeFile(path.join(DIR, 'pgbouncer.ini'), ini);
await writeFile(path.join(DIR, 'userlist.txt'), `${quoted(user)} ${quoted(password)}\n`, {
  mode: 0o644,
});

// PgBouncer will not run as root: it drops to the postgres user then.
const asRoot = process.getuid?.() === 0;
const bouncer = spawn(
  binary,
  [
    ...(asRoot ? ['-u', process.env.PGBOUNCER_USER ?? 'postgres'] : []),
    path.join(DIR, 'pgbouncer.ini'),
  ],
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
let log = '';
const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-200_000));
bouncer.stdout.on('data', keep);
bouncer.stderr.on('data', keep);
let exited = false;
bouncer.once('exit', () => (exited = true));
// SIGTERM: PgBouncer closes every connection at once.
const stopBouncer = () => void (exited || bouncer.kill('SIGTERM'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopBouncer();
    process.exit(130);
  });
}

const listening = async () =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
const deadline = Date.now() + 10_000;
while (!(await listening())) {
  if (exited || Date.now() > deadline) {
    stopBouncer();
    fail(`PgBouncer did not start:\n${log}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}

const pooled = new URL(server);
pooled.hostname = '127.0.0.1';
pooled.port = String(port);
console.error(`test:pgbouncer: PgBouncer on port ${port} in front of ${server.host}`);
const started = Date.now();
const tests = spawn(process.execPath, ['scripts/test.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: {
    ...process.env,
    DATABASE_URL: pooled.toString(),
    DATABASE_DIRECT_URL: server.toString(),
  },
});
let code: number = await new Promise((resolve) => tests.on('exit', (c) => resolve(c ?? 1)));
console.error(`test:pgbouncer: the suite took ${Math.round((Date.now() - started) / 1000)} s`);

// What went through PgBouncer (its admin console): a pass that routed nothing proves nothing.
try {
  const consoleUrl = new URL(pooled);
  consoleUrl.pathname = '/pgbouncer';
  const admin = new pg.Client({ connectionString: consoleUrl.toString() });
  await admin.connect();
  const { rows } = await admin.query<{ database: string; total_xact_count: string }>('SHOW STATS');
  await admin.end();
  const served = rows.filter((r) => r.database !== 'pgbouncer');
  const transactions = served.reduce((n, r) => n + Number(r.total_xact_count), 0);
  console.error(
    `test:pgbouncer: PgBouncer ran ${transactions} transactions (test databases: ${served.length})`,
  );
  if (transactions === 0) code ||= 1;
} finally {
  stopBouncer();
  await writeFile(path.join(DIR, 'pgbouncer.log'), log);
}
process.exit(code);
