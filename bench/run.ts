// `npm run bench`: the service under load next to its physical ceilings, in one run on one
// machine. Targets are ratios to baselines measured side by side, never absolute times.
//   - read paths against a bare Fastify route answering a constant body of the same size;
//   - write paths against pgbench's TPC-B-like transaction at the same concurrency;
//   - list depth: a page deep in a tenant of 1,000,000 customers against its first page.
// Without DATABASE_URL it runs on an embedded PostgreSQL (./data/bench-pg); with it, on that
// server (a database `billing_bench` is created there and dropped at the end).
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { createPool } from '../src/db/pool.ts';
import { CursorSigner, listBinding } from '../src/paging.ts';
import { loadConfig } from '../src/config.ts';
import { SecretsKeyring } from '../src/secrets/keyring.ts';
import {
  API_NODE_ARGS,
  API_READY,
  apiEnv,
  BARE_READY,
  bareNodeArgs,
  runLoad,
  startChild,
} from './child.ts';
import { dropDatabase } from '../src/db/admin.ts';
import { benchServer, benchTenant, freshDatabase } from './database.ts';
import { seedCustomers, seedInvoices } from './seed.ts';

const run = promisify(execFile);
// Each comparison alternates its two sides, ROUNDS times SECONDS each, after a warm-up of each
// side: a drift of this shared VM's speed during the run then falls on both sides alike.
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARM_UP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
// BENCH_ONLY=whoami,list,invoice,writes measures only those groups (all of them by default):
// for working on one path without the whole run.
const ONLY = new Set((process.env.BENCH_ONLY ?? 'whoami,list,invoice,writes').split(','));

async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

interface LoadResult {
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  /** The load generator's CPU, as a share of one core (mean of the rounds). */
  cpu?: number;
  /** Throughput of each round, when the result combines rounds. */
  rounds?: number[];
}

function load(spec: Record<string, unknown>, seconds = SECONDS): Promise<LoadResult> {
  return runLoad<LoadResult>({ connections: CONNECTIONS, seconds, ...spec });
}

/**
 * The rounds of one side as one result: mean throughput, mean p50, the worst round's p99 (a
 * p99 over all requests would need the rounds' histograms), errors summed.
 */
function combine(results: LoadResult[]): LoadResult {
  const sum = (f: (r: LoadResult) => number) => results.reduce((total, r) => total + f(r), 0);
  const mean = (f: (r: LoadResult) => number) => sum(f) / results.length;
  return {
    rps: mean((r) => r.rps),
    requests: sum((r) => r.requests),
    p50: mean((r) => r.p50),
    p99: Math.max(...results.map((r) => r.p99)),
    errors: sum((r) => r.errors),
    ...(results.every((r) => r.cpu !== undefined) ? { cpu: mean((r) => r.cpu!) } : {}),
    rounds: results.map((r) => r.rps),
  };
}

/** Round by round, a side's throughput over its baseline's (each pair ran side by side). */
function roundRatios(side: LoadResult, baseline: LoadResult): number[] {
  return side.rounds!.map((rps, i) => rps / baseline.rounds![i]!);
}

/**
 * A side's ratio to its baseline: the median of the round-by-round ratios. This shared VM's
 * speed drifts by tens of per cent from one round to the next, and a round pair shares one
 * state of it; the median of the pairs is not pulled by a single disturbed round as a ratio of
 * means is. Every round's ratio is listed in the report.
 */
function ratio(side: LoadResult, baseline: LoadResult): number {
  const sorted = roundRatios(side, baseline).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const spreads: string[] = [];
function noteSpread(name: string, side: LoadResult, baseline: LoadResult): void {
  spreads.push(
    `${name} ${roundRatios(side, baseline)
      .map((r) => r.toFixed(2))
      .join(', ')}`,
  );
}

type Side = (seconds: number) => Promise<LoadResult>;

/** Sides measured in turn (a, b, …, a, b, …) after a warm-up of each; one result per side. */
async function inTurn(...sides: Side[]): Promise<LoadResult[]> {
  for (const side of sides) await side(WARM_UP_SECONDS);
  const results = sides.map((): LoadResult[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, side] of sides.entries()) results[i]!.push(await side(SECONDS));
  }
  return results.map(combine);
}

const loader =
  (spec: Record<string, unknown>): Side =>
  (seconds) =>
    load(spec, seconds);

function pgbenchArgs(url: string) {
  const u = new URL(url);
  const env = { ...process.env, PGPASSWORD: decodeURIComponent(u.password) };
  const common = [
    '-h',
    u.hostname,
    '-p',
    u.port || '5432',
    '-U',
    decodeURIComponent(u.username) || 'postgres',
  ];
  return { env, common, db: u.pathname.slice(1) };
}

/** pgbench's own tables (pgbench vacuums them), made before anything is measured. */
async function initPgbench(url: string): Promise<void> {
  const { env, common, db } = pgbenchArgs(url);
  await run('pgbench', [...common, '-i', '-q', '-s', '10', db], { env });
}

/** pgbench's TPC-B-like run as a load result (p50 is its average latency; no p99). */
async function pgbench(url: string, seconds: number): Promise<LoadResult> {
  const { env, common, db } = pgbenchArgs(url);
  const { stdout } = await run(
    'pgbench',
    [...common, '-c', String(CONNECTIONS), '-j', '2', '-T', String(seconds), '-M', 'prepared', db],
    { env },
  );
  const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? 0);
  const latency = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1] ?? 0);
  const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
  return { rps: tps, requests: Math.round(tps * seconds), p50: latency, p99: 0, errors: failed };
}

const rows: string[][] = [];
const notes: string[] = [];
const generator: string[] = [];
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
function record(
  name: string,
  r: LoadResult,
  baseline: string,
  ratio: number | null,
  memory: number | null,
  target: string,
) {
  rows.push([
    name,
    fmt(r.rps),
    fmt(r.p50, 1),
    fmt(r.p99, 1),
    String(r.errors),
    memory === null ? '' : String(memory),
    baseline,
    ratio === null ? '' : ratio.toFixed(2),
    target,
  ]);
  if (r.cpu !== undefined) generator.push(`${name} ${r.cpu.toFixed(2)}`);
  console.error(
    `${name}: ${fmt(r.rps)} req/s, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms, errors ${r.errors}${ratio === null ? '' : `, ratio ${ratio.toFixed(2)}`}`,
  );
}

// --- database -----------------------------------------------------------------------------
const server = await benchServer();
const external = server.external;
const serverUrl = server.url;
const benchDb = await freshDatabase(serverUrl, 'billing_bench');
const pgbenchDb = await freshDatabase(serverUrl, 'billing_pgbench');
const db = createPool(benchDb, 4);
const tenant = await benchTenant(db);

const scope = { tenantId: tenant.tenantId, environment: 'test' as const };

console.error(`seeding ${ROWS.toLocaleString()} customers and ${ROWS.toLocaleString()} invoices …`);
let t0 = Date.now();
await seedCustomers(db, scope, ROWS);
const customersSeconds = (Date.now() - t0) / 1000;
t0 = Date.now();
const invoiceIds = await seedInvoices(db, scope, ROWS);
const invoicesSeconds = (Date.now() - t0) / 1000;
// The drafts the issue benchmark issues, one per request.
const drafts = await seedInvoices(db, scope, 200_000, { draftsOnly: true });
await initPgbench(pgbenchDb);
// Settle before measuring: no autovacuum or checkpoint of the fresh rows during the runs.
await db.query('VACUUM (ANALYZE)');
await db.query('CHECKPOINT');
notes.push(
  `Data set: ${ROWS.toLocaleString()} customers in ${customersSeconds.toFixed(1)} s and ${invoiceIds.seeded.toLocaleString()} invoices in ${invoicesSeconds.toFixed(1)} s (bulk INSERT … SELECT generate_series).`,
);

// --- processes ----------------------------------------------------------------------------
const api = await startChild(process.execPath, API_NODE_ARGS, apiEnv(benchDb), API_READY);
const base = api.match[1]!;
// The API drops log lines, and says how many, when its standard output is not drained in time
// (src/http/log-lines.ts): the run reports them.
let droppedLogLines = 0;
api.child.stdout?.on('data', (chunk: Buffer) => {
  if (!chunk.includes('log lines dropped')) return;
  for (const match of chunk.toString().matchAll(/"dropped":(\d+)/g)) {
    droppedLogLines += Number(match[1]);
  }
});
const auth = { authorization: `Bearer ${tenant.secret}` };
const get = async (path: string) => (await fetch(`${base}${path}`, { headers: auth })).text();

const whoamiBody = await get('/v1/auth/whoami');
const firstPageBody = await get('/v1/customers?limit=25');
const signer = new CursorSigner((await SecretsKeyring.load(loadConfig())).derive('cursor signing'));
const deepRow = (
  await db.query(
    `SELECT created_at, id FROM customers WHERE tenant_id = $1 AND environment = 'test'
      ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
    [tenant.tenantId, Math.floor(ROWS * 0.99)],
  )
).rows[0] as { created_at: Date; id: string };
const deepCursor = signer.sign({
  t: deepRow.created_at.toISOString(),
  i: deepRow.id,
  b: listBinding(scope, 'customers', {}),
});
const deepPath = `/v1/customers?limit=25&cursor=${encodeURIComponent(deepCursor)}`;
const deepBody = await get(deepPath);
const invoicePath = invoiceIds.sample ? `/v1/invoices/${invoiceIds.sample}` : null;
const invoiceBody = invoicePath ? await get(invoicePath) : '{}';

const bare = await startChild(
  process.execPath,
  bareNodeArgs({ whoami: whoamiBody, list: firstPageBody, invoice: invoiceBody }),
  process.env,
  BARE_READY,
);
const bareBase = `http://127.0.0.1:${bare.match[1]}`;

// --- read paths ---------------------------------------------------------------------------
if (ONLY.has('whoami')) {
  const [bareWhoami, whoami] = await inTurn(
    loader({ url: `${bareBase}/whoami` }),
    loader({ url: `${base}/v1/auth/whoami`, headers: auth }),
  );
  record('bare Fastify, whoami-sized body', bareWhoami!, '', null, null, '');
  noteSpread('whoami', whoami!, bareWhoami!);
  record(
    'GET /v1/auth/whoami',
    whoami!,
    'bare',
    ratio(whoami!, bareWhoami!),
    await peakRssMb(api.child.pid!),
    '≥ 0.70',
  );
}

if (ONLY.has('list')) {
  const [bareList, first, deep] = await inTurn(
    loader({ url: `${bareBase}/list` }),
    loader({ url: `${base}/v1/customers?limit=25`, headers: auth }),
    loader({ url: `${base}${deepPath}`, headers: auth }),
  );
  record('bare Fastify, page-sized body', bareList!, '', null, null, '');
  noteSpread('first page', first!, bareList!);
  noteSpread('deep page / first page', deep!, first!);
  record(
    'GET /v1/customers?limit=25 (first page)',
    first!,
    'bare',
    ratio(first!, bareList!),
    await peakRssMb(api.child.pid!),
    '≥ 0.40',
  );
  record(
    `GET /v1/customers?limit=25 (page at row ${Math.floor(ROWS * 0.99).toLocaleString()})`,
    deep!,
    'first page',
    ratio(deep!, first!),
    await peakRssMb(api.child.pid!),
    '',
  );
  notes.push(
    `List depth: deep page p50 ${fmt(deep!.p50, 1)} ms over first page p50 ${fmt(first!.p50, 1)} ms; time per request deep / first = ${(1 / ratio(deep!, first!)).toFixed(2)} (target ≤ 1.3). Bodies: first page ${firstPageBody.length} bytes, deep page ${deepBody.length} bytes.`,
  );
}

if (invoicePath && ONLY.has('invoice')) {
  const [bareInvoice, invoice] = await inTurn(
    loader({ url: `${bareBase}/invoice` }),
    loader({ url: `${base}${invoicePath}`, headers: auth }),
  );
  record('bare Fastify, invoice-sized body', bareInvoice!, '', null, null, '');
  noteSpread('GET invoice', invoice!, bareInvoice!);
  record(
    'GET /v1/invoices/{id}',
    invoice!,
    'bare',
    ratio(invoice!, bareInvoice!),
    await peakRssMb(api.child.pid!),
    '',
  );
}

// --- write paths --------------------------------------------------------------------------
// Each issue takes the next draft: a round starts past every draft the rounds before it could
// have sent (requests still in flight when a round ended were not counted).
let nextDraft = 1;
const issueSide: Side = async (seconds) => {
  const result = await load(
    {
      url: base,
      method: 'POST',
      headers: auth,
      pathTemplate: '/v1/invoices/inv_draft{n}/issue',
      pathStart: nextDraft,
      pathCount: drafts.seeded,
    },
    seconds,
  );
  nextDraft += result.requests + 2 * CONNECTIONS;
  return result;
};
const createSide = loader({
  url: `${base}/v1/invoices`,
  method: 'POST',
  headers: { ...auth, 'content-type': 'application/json' },
  body: JSON.stringify({
    customerId: invoiceIds.customerId,
    currency: 'eur',
    lines: [
      { description: 'Consulting', quantity: 3, unitAmount: 12_000 },
      { description: 'Travel', quantity: 1, unitAmount: 4_550 },
    ],
  }),
  freshIdempotencyKey: true,
});
if (invoiceIds.customerId && ONLY.has('writes')) {
  const [tpcb, create, issue] = await inTurn(
    (seconds) => pgbench(pgbenchDb, seconds),
    createSide,
    issueSide,
  );
  rows.push([
    'pgbench TPC-B-like',
    fmt(tpcb!.rps),
    fmt(tpcb!.p50, 1) + ' (avg)',
    '',
    String(tpcb!.errors),
    '',
    '',
    '',
    '',
  ]);
  console.error(`pgbench: ${fmt(tpcb!.rps)} tps`);
  noteSpread('create', create!, tpcb!);
  noteSpread('issue', issue!, tpcb!);
  record(
    'POST /v1/invoices (2 lines, fresh Idempotency-Key)',
    create!,
    'pgbench',
    ratio(create!, tpcb!),
    await peakRssMb(api.child.pid!),
    '≥ 0.50, p99 < 50 ms',
  );
  record(
    'POST /v1/invoices/{id}/issue',
    issue!,
    'pgbench',
    ratio(issue!, tpcb!),
    await peakRssMb(api.child.pid!),
    '',
  );
}

const memory = await peakRssMb(api.child.pid!);
api.child.kill('SIGTERM');
bare.child.kill('SIGTERM');
await db.end();
await dropDatabase(serverUrl, 'billing_bench');
await dropDatabase(serverUrl, 'billing_pgbench');
await server.stop();

const header = [
  'scenario',
  'req/s',
  'p50 ms',
  'p99 ms',
  'errors',
  'peak RSS MB',
  'baseline',
  'ratio',
  'target',
];
const table = [header, header.map(() => '---'), ...rows]
  .map((r) => `| ${r.join(' | ')} |`)
  .join('\n');
const report = [
  `### ${external ? 'External PostgreSQL (DATABASE_URL)' : 'Embedded PostgreSQL'}: ${CONNECTIONS} connections; each comparison in turn, ${ROUNDS} rounds of ${SECONDS} s per scenario after a ${WARM_UP_SECONDS} s warm-up (req/s and p50: mean of the rounds; p99: the worst round; ratio: median of the round-by-round ratios)`,
  '',
  table,
  '',
  ...notes.map((n) => `- ${n}`),
  `- Each round's ratio (the table gives their median): ${spreads.join('; ')}.`,
  `- The load generator's CPU, as a share of one core (one thread; near 1.00 it, not the server, sets the rate): ${generator.join('; ')}.`,
  `- Server peak resident memory over the whole run: ${memory} MB (target < 250 MB).`,
  `- Log lines the server dropped because its standard output was not drained in time: ${droppedLogLines}.`,
  '',
].join('\n');
console.log(report);
await writeFile(`bench/results-${external ? 'external' : 'embedded'}.md`, report);
process.exit(0);
