// `npm run bench:instructions`: what a request costs the API, in CPU instructions counted by
// valgrind's callgrind rather than in seconds, for whoami (against a bare Fastify route) and
// the reads of the mixed load; and what it costs PostgreSQL, in CPU time of its backends.
//
// This shared 2-core VM's speed drifts by tens of per cent from one second to the next (the
// bare route alone ran 35,000–61,000 req/s in one hour), so a change worth a few per cent is
// lost in `npm run bench`'s noise. Instructions executed per request do not depend on how fast
// the machine is at the moment: they move only with the code and with the JIT's decisions.
// Both servers run under callgrind with counting off; for each operation, after a warm-up (the
// JIT settles) the count is zeroed, switched on for a fixed number of requests and dumped; the
// main thread's count is the figure. The kernel's share (the socket writes, about a third of
// the bare route's time) is not counted: the ratio here is of user-space work only, and is
// lower than the throughput ratio.
//
// PostgreSQL is not under callgrind (it may be a shared server): its figure is the CPU time
// (/proc/<pid>/schedstat, in nanoseconds) of the backends serving the bench's database over
// the same requests. It moves with the machine's load, unlike the instructions, and at
// callgrind's pace (a few requests a second) the server's work by the clock outweighs the
// requests' statements: it bounds them, it does not isolate them.
//
// The data set is one tenant of bench/dataset.ts's plan at BENCH_IR_SCALE (0.005: 5,000
// customers, 2,500 invoices of 1–3 lines), seeded by bench/seed.ts. Without DATABASE_URL it
// runs on an embedded PostgreSQL (./data/bench-pg, as `npm run bench`); with it, a database of
// its own (named after this process) is made on that server and dropped at the end.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { API_READY, apiEnv, BARE_READY, bareNodeArgs, startChild } from './child.ts';
import { benchServer, dropDatabase, freshDatabase } from './database.ts';
import { customerEmail, customerId, invoiceId, planTenants } from './dataset.ts';
import { makeTenants, startCommand } from './project.ts';
import { seed } from './seed.ts';

const run = promisify(execFile);
const SCALE = Number(process.env.BENCH_IR_SCALE ?? 0.005);
const ROUNDS = Number(process.env.BENCH_IR_ROUNDS ?? 2);
/** Operations to measure, by name (comma-separated), else all of them. */
const ONLY = process.env.BENCH_IR_ONLY?.split(',');
/** A factor on every operation's number of requests (0.1 for a quick look). */
const FACTOR = Number(process.env.BENCH_IR_FACTOR ?? 1);
/** Connections at once: whoami's and the bare route's as `npm run bench`'s. */
const CONNECTIONS = 32;
/**
 * A read's: under callgrind a request that waits for one of the API pool's 20 connections
 * longer than the pool's 5 s is refused as the database unavailable (503).
 */
const READ_CONNECTIONS = 8;

try {
  await run('valgrind', ['--version']);
} catch {
  console.error('valgrind is not installed (Debian: apt-get install valgrind).');
  process.exit(1);
}

const server = await benchServer((m) => console.error(m));
const serverUrl = server.url;
const database = `billing_bench_ir_${process.pid}`;
const benchUrl = await freshDatabase(serverUrl, database);
const plan = planTenants(1, SCALE);
const [tenant] = await makeTenants(process.cwd(), benchUrl, 1);
await seed(benchUrl, plan, [tenant!], (m) => console.error(`seeding: ${m}`));
const { customers, invoices } = plan[0]!;
const headers = { authorization: `Bearer ${tenant!.secrets[0]}` };

const dumps = await mkdtemp(join(tmpdir(), 'billing-callgrind-'));
const callgrind = [
  '--tool=callgrind',
  // V8 writes and rewrites its machine code: valgrind must notice code that changes.
  '--smc-check=all-non-file',
  '--instr-atstart=no',
  // The main thread apart: it handles the requests. V8's helper threads (the optimising
  // compiler, concurrent marking) work by the clock as much as by the load, and spin the
  // longer the busier this shared machine is; counted with them, the same code measured
  // 280,000 and 1,160,000 instructions per whoami in two runs.
  '--separate-threads=yes',
  `--callgrind-out-file=${join(dumps, 'callgrind.%p')}`,
];
const start = await startCommand(process.cwd());
console.error('starting the API and the bare route under callgrind (slow: about a minute) …');
// Requests only: without the worker, whose jobs run by the clock and would be counted more the
// slower the requests go. Its local state goes with the dumps, removed at the end.
const api = await startChild(
  'valgrind',
  [...callgrind, process.execPath, ...start.flags, start.entry],
  { ...apiEnv(benchUrl, dumps), RUN_WORKER: 'false' },
  API_READY,
);
// Whatever happens, the servers under callgrind end with this process.
process.on('exit', () => api.child.kill('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(1));
const apiPool = new Pool(api.match[1]!, { connections: CONNECTIONS });
const whoamiBody = await get(apiPool, '/v1/auth/whoami');
const bare = await startChild(
  'valgrind',
  [...callgrind, process.execPath, ...bareNodeArgs({ whoami: whoamiBody })],
  process.env,
  BARE_READY,
);
process.on('exit', () => bare.child.kill('SIGKILL'));
const barePool = new Pool(`http://127.0.0.1:${bare.match[1]}`, { connections: CONNECTIONS });

/**
 * Answers 503 retried (with their count): under callgrind the API may take longer to open a
 * database connection than its pool waits (5 s), which it answers as the database unavailable.
 */
let retried = 0;

/** The body of GET `path` (the tenant's key), which must answer 200. */
async function get(pool: Pool, path: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const response = await pool.request({ method: 'GET', path, headers });
    const body = await response.body.text();
    if (response.statusCode === 200) return body;
    if (response.statusCode !== 503 || attempt === 10) {
      throw new Error(`${path}: ${response.statusCode} ${body}`);
    }
    retried++;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** `amount` requests, request i to `path(i)`, CONNECTIONS at a time (each a closed loop). */
async function load(
  pool: Pool,
  path: (i: number) => string,
  amount: number,
  connections = READ_CONNECTIONS,
): Promise<void> {
  let next = 0;
  const connection = async () => {
    while (next < amount) await get(pool, path(next++));
  };
  await Promise.all(Array.from({ length: connections }, connection));
}

// Seeded invoice n has 1 + (n / 10) % 3 lines and its status by n % 10 (bench/dataset.ts):
// n = 30k + 22..26 is open with 3 lines, n = 30k + 20, 21 a draft with 3 lines.
const spread = (i: number, step: number, offsets: number[], total: number) =>
  1 + ((Math.floor(i / offsets.length) * step + offsets[i % offsets.length]! - 1) % total);
const openInvoice = (i: number) => invoiceId(0, spread(i, 30, [22, 23, 24, 25, 26], invoices));
const draftInvoice = (i: number) => invoiceId(0, spread(i, 30, [20, 21], invoices));
const someCustomer = (i: number) => 1 + ((i * 7919) % customers);
// Cursors of pages of 25 all along the list, read before the counting starts.
const cursors: string[] = [];
async function readCursors(): Promise<void> {
  let cursor: string | null = null;
  do {
    const path: string = `/v1/customers${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`;
    cursor = (JSON.parse(await get(apiPool, path)) as { nextCursor: string | null }).nextCursor;
    if (cursor) cursors.push(cursor);
  } while (cursor && cursors.length < 199);
}

interface Operation {
  name: string;
  pool: Pool;
  /** The path of request i. */
  path: (i: number) => string;
  /** Requests before the counting (the JIT settles), then per counted round. */
  warmUp: number;
  requests: number;
  /** Connections at once (READ_CONNECTIONS unless it says). */
  connections?: number;
}

// The reads of the mixed load (bench/traffic.ts), each on its own, and whoami with the bare
// route as the floor of any request.
const ALL_OPERATIONS: Operation[] = [
  {
    name: 'bare Fastify, whoami-sized body',
    pool: barePool,
    path: () => '/whoami',
    warmUp: 10_000,
    requests: 2_000,
    connections: CONNECTIONS,
  },
  {
    name: 'GET /v1/auth/whoami',
    pool: apiPool,
    path: () => '/v1/auth/whoami',
    warmUp: 10_000,
    requests: 2_000,
    connections: CONNECTIONS,
  },
  {
    name: 'GET /v1/customers/{id}',
    pool: apiPool,
    path: (i) => `/v1/customers/${customerId(0, someCustomer(i))}`,
    warmUp: 1_000,
    requests: 200,
  },
  {
    name: 'GET /v1/customers (page of 25)',
    pool: apiPool,
    path: () => '/v1/customers',
    warmUp: 400,
    requests: 60,
  },
  {
    name: 'GET /v1/customers?limit=100',
    pool: apiPool,
    path: () => '/v1/customers?limit=100',
    warmUp: 300,
    requests: 40,
  },
  {
    name: 'GET /v1/customers?cursor= (next 25)',
    pool: apiPool,
    path: (i) => `/v1/customers?cursor=${encodeURIComponent(cursors[i % cursors.length]!)}`,
    warmUp: 400,
    requests: 60,
  },
  {
    name: 'GET /v1/customers?email=',
    pool: apiPool,
    path: (i) => `/v1/customers?email=${encodeURIComponent(customerEmail(0, someCustomer(i)))}`,
    warmUp: 1_000,
    requests: 200,
  },
  {
    name: 'GET /v1/invoices/{id} (open, 3 lines)',
    pool: apiPool,
    path: (i) => `/v1/invoices/${openInvoice(i)}`,
    warmUp: 1_000,
    requests: 200,
  },
  {
    name: 'GET /v1/invoices/{id} (draft, 3 lines)',
    pool: apiPool,
    path: (i) => `/v1/invoices/${draftInvoice(i)}`,
    warmUp: 1_000,
    requests: 200,
  },
];
const OPERATIONS = ALL_OPERATIONS.filter(
  (o) => !ONLY || ONLY.some((name) => o.name.includes(name)),
).map((o) => ({
  ...o,
  warmUp: Math.ceil(o.warmUp * FACTOR),
  requests: Math.ceil(o.requests * FACTOR),
}));

// PostgreSQL's side: the CPU time of the backends serving the bench's database, read on a
// connection of its own (left out).
const monitor = new pg.Client({ connectionString: benchUrl });
await monitor.connect();
async function postgresNs(): Promise<Map<number, number>> {
  const { rows } = await monitor.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  const times = await Promise.all(
    rows.map(async ({ pid }) => {
      const text = await readFile(`/proc/${pid}/schedstat`, 'utf8').catch(() => '0');
      return [pid, Number(text.split(' ')[0])] as const;
    }),
  );
  return new Map(times);
}
/** Nanoseconds the backends spent between two readings (one that ended since is lost). */
function postgresSpent(before: Map<number, number>, after: Map<number, number>): number {
  let ns = 0;
  for (const [pid, time] of after) ns += time - (before.get(pid) ?? 0);
  return ns;
}

/** The newest dump of process `pid`'s main thread, and its instruction total. */
async function lastDump(pid: number): Promise<{ file: string; instructions: number }> {
  // callgrind.<pid>.<dump>-<thread>: the main thread is 01.
  const files = (await readdir(dumps)).filter(
    (f) => f.startsWith(`callgrind.${pid}.`) && f.endsWith('-01'),
  );
  const dumpNumber = (f: string) => Number(f.split('.').pop()!.split('-')[0]);
  const newest = files.sort((a, b) => dumpNumber(a) - dumpNumber(b));
  const file = join(dumps, newest.at(-1)!);
  const totals = /^totals: (\d+)/m.exec(await readFile(file, 'utf8'));
  return { file, instructions: Number(totals?.[1] ?? 0) };
}

interface Counted {
  instructions: number;
  postgresUs: number;
  file: string;
}

/** Instructions (and PostgreSQL µs) per request of one counted round of `op`. */
async function count(op: Operation, pid: number, round: number): Promise<Counted> {
  const control = (...args: string[]) => run('callgrind_control', [...args, String(pid)]);
  const first = op.warmUp + round * op.requests;
  await control('-z');
  await control('-i', 'on');
  const before = await postgresNs();
  await load(op.pool, (i) => op.path(first + i), op.requests, op.connections);
  const after = await postgresNs();
  await control('-i', 'off');
  await control('-d');
  const dump = await lastDump(pid);
  return {
    instructions: dump.instructions / op.requests,
    postgresUs: postgresSpent(before, after) / 1000 / op.requests,
    file: dump.file,
  };
}

// What of an operation's last round went to the JIT compiler, the garbage collector and V8's
// slow paths (inclusive): these move from run to run with the JIT's decisions, and say
// whether a difference between two runs is the code's or the JIT's.
const V8_ITEMS: [string, RegExp][] = [
  ['optimising compiler', /PipelineImpl::OptimizeGraph\(/],
  ['garbage collector', /Heap::CollectGarbage\(|ConcurrentMarking::RunMajor\(/],
  [
    'object literals with computed keys, in the runtime',
    /Runtime_DefineKeyedOwnPropertyInLiteral\(/,
  ],
  ['objects moved to a new map', /JSObject::MigrateToMap\(/],
  ['regular expressions, in the runtime', /Runtime_RegExpExec\(/],
];
async function v8Items(file: string, requests: number): Promise<string> {
  const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', file], {
    maxBuffer: 1 << 26,
  });
  const lines = stdout.split('\n');
  return V8_ITEMS.map(([name, pattern]) => {
    const total = lines
      .filter((line) => pattern.test(line))
      .reduce(
        (sum, line) => sum + Number(/^\s*([\d,]+)/.exec(line)?.[1]?.replaceAll(',', '') ?? 0),
        0,
      );
    return `${name} ${Math.round(total / requests).toLocaleString('en-US')}`;
  }).join(', ');
}

if (OPERATIONS.some((o) => o.name.includes('cursor='))) await readCursors();
const results: { op: Operation; rounds: Counted[]; v8: string }[] = [];
for (const op of OPERATIONS) {
  const pid = (op.pool === barePool ? bare : api).child.pid!;
  const started = performance.now();
  await load(op.pool, op.path, op.warmUp, op.connections);
  const rounds: Counted[] = [];
  for (let round = 0; round < ROUNDS; round++) rounds.push(await count(op, pid, round));
  const v8 = await v8Items(rounds.at(-1)!.file, op.requests);
  results.push({ op, rounds, v8 });
  const figures = rounds.map(
    (r) =>
      `${Math.round(r.instructions).toLocaleString('en-US')} (PostgreSQL ${r.postgresUs.toFixed(1)} µs)`,
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.error(`${op.name}: ${figures.join(', ')} instructions/request (${seconds} s)`);
}

await apiPool.close();
await barePool.close();
await monitor.end();
api.child.kill('SIGTERM');
bare.child.kill('SIGTERM');
await dropDatabase(serverUrl, database);
await server.stop();
await rm(dumps, { recursive: true, force: true });

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const bareFigure = results.find((r) => r.op.pool === barePool)?.rounds;
const report = [
  `### Instructions per request (${server.external ? 'external PostgreSQL' : 'embedded PostgreSQL'}; callgrind, main thread, user space only; ${CONNECTIONS} connections for whoami, ${READ_CONNECTIONS} for reads; ${customers.toLocaleString('en-US')} customers, ${invoices.toLocaleString('en-US')} invoices; ${ROUNDS} counted rounds after a warm-up)`,
  '',
  '| operation | requests (warm-up, per round) | API instructions/request, each round | PostgreSQL CPU µs/request, each round | bare / API |',
  '| --- | --- | --- | --- | --- |',
  ...results.map(({ op, rounds }) => {
    const ratio =
      bareFigure && op.pool !== barePool
        ? rounds.map((r, i) => (bareFigure[i]!.instructions / r.instructions).toFixed(2)).join(', ')
        : '';
    return `| ${op.name} | ${fmt(op.warmUp)}, ${fmt(op.requests)} | ${rounds.map((r) => fmt(r.instructions)).join(', ')} | ${rounds.map((r) => r.postgresUs.toFixed(1)).join(', ')} | ${ratio} |`;
  }),
  '',
  `Requests retried after a 503 (the API's pool timing out while connecting, under callgrind): ${retried}.`,
  '',
  'Instructions per request in the last round that went to (inclusive):',
  '',
  ...results.map(({ op, v8 }) => `- ${op.name}: ${v8}`),
  '',
].join('\n');
console.log(report);
process.exit(0);
