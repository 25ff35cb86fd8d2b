// `npm run bench:instructions`: what a whoami costs the API and the bare Fastify route, in CPU
// instructions counted by valgrind's callgrind rather than in seconds.
//
// This shared 2-core VM's speed drifts by tens of per cent from one second to the next (the
// bare route alone ran 35,000–61,000 req/s in one hour), so a change worth a few per cent is
// lost in `npm run bench`'s noise. Instructions executed per request do not depend on how fast
// the machine is at the moment: they move only with the code and with the JIT's decisions.
// Both servers run under callgrind with counting off; after a warm-up (the JIT settles) the
// count is zeroed, switched on for a fixed number of requests and dumped. The kernel's share
// (the socket writes, about a third of the bare route's time) is not counted: the ratio here
// is of user-space work only, and is lower than the throughput ratio.
//
// Without DATABASE_URL it runs on an embedded PostgreSQL (./data/bench-pg, as `npm run bench`);
// with it, a database `billing_bench_ir` is made on that server and dropped at the end.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { API_READY, apiEnv, BARE_READY, bareNodeArgs, Generator, startChild } from './child.ts';
import { benchServer, dropDatabase, freshDatabase } from './database.ts';
import { planTenants } from './dataset.ts';
import { makeTenants, startCommand } from './project.ts';

const run = promisify(execFile);
const WARM_UP = Number(process.env.BENCH_IR_WARM_UP ?? 100_000);
const REQUESTS = Number(process.env.BENCH_IR_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_IR_ROUNDS ?? 2);
const CONNECTIONS = 32;

try {
  await run('valgrind', ['--version']);
} catch {
  console.error('valgrind is not installed (Debian: apt-get install valgrind).');
  process.exit(1);
}

const server = await benchServer((m) => console.error(m));
const serverUrl = server.url;
const benchUrl = await freshDatabase(serverUrl, 'billing_bench_ir');
const [tenant] = await makeTenants(process.cwd(), benchUrl, 1);
const auth = { authorization: `Bearer ${tenant!.secrets[0]}` };

const dumps = await mkdtemp(join(tmpdir(), 'billing-callgrind-'));
const callgrind = [
  '--tool=callgrind',
  // V8 writes and rewrites its machine code: valgrind must notice code that changes.
  '--smc-check=all-non-file',
  '--instr-atstart=no',
  `--callgrind-out-file=${join(dumps, 'callgrind.%p')}`,
];
const start = await startCommand(process.cwd());
console.error('starting the API and the bare route under callgrind (slow: about a minute) …');
const api = await startChild(
  'valgrind',
  [...callgrind, process.execPath, ...start.flags, start.entry],
  apiEnv(benchUrl, dumps), // its local state goes with the dumps, removed at the end
  API_READY,
);
const base = api.match[1]!;
const whoamiBody = await (await fetch(`${base}/v1/auth/whoami`, { headers: auth })).text();
const bare = await startChild(
  'valgrind',
  [...callgrind, process.execPath, ...bareNodeArgs({ whoami: whoamiBody })],
  process.env,
  BARE_READY,
);
const bareBase = `http://127.0.0.1:${bare.match[1]}`;

// The load generator of `npm run bench` (bench/generator.ts), asked for a fixed number of
// whoami requests with the tenant's key (the bare route answers them alike).
const generator = new Generator();
await generator.setup({
  type: 'setup',
  plan: planTenants(1, 0),
  targets: {
    api: { origins: [base], secrets: [tenant!.secrets] },
    bare: { origins: [bareBase], secrets: [tenant!.secrets] },
  },
});

async function load(target: 'api' | 'bare', amount: number): Promise<void> {
  const figures = await generator.round({
    target,
    scenario: {
      weights: target === 'api' ? { whoami: 1 } : { bare: 1 },
      tenants: 'traffic',
      payments: false,
    },
    seconds: 3600,
    connections: CONNECTIONS,
    amount,
  });
  const errors = Object.values(figures.operations).reduce((n, o) => n + (o?.errors ?? 0), 0);
  if (errors > 0) throw new Error(`${target}: ${errors} errors`);
}

/** The newest dump of process `pid`, and its instruction total. */
async function lastDump(pid: number): Promise<{ file: string; instructions: number }> {
  const files = (await readdir(dumps)).filter((f) => f.startsWith(`callgrind.${pid}.`));
  const newest = files.sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
  const file = join(dumps, newest.at(-1)!);
  const totals = /^totals: (\d+)/m.exec(await readFile(file, 'utf8'));
  return { file, instructions: Number(totals?.[1] ?? 0) };
}

/** Instructions per request of `REQUESTS` requests to `url` on process `pid`. */
async function count(
  pid: number,
  target: 'api' | 'bare',
): Promise<{ perRequest: number; file: string }> {
  const control = (...args: string[]) => run('callgrind_control', [...args, String(pid)]);
  await control('-z');
  await control('-i', 'on');
  await load(target, REQUESTS);
  await control('-i', 'off');
  await control('-d');
  const dump = await lastDump(pid);
  return { perRequest: dump.instructions / REQUESTS, file: dump.file };
}

const sides = [
  { name: 'bare Fastify, whoami-sized body', pid: bare.child.pid!, target: 'bare' as const },
  { name: 'GET /v1/auth/whoami', pid: api.child.pid!, target: 'api' as const },
];
for (const side of sides) await load(side.target, WARM_UP);
const results = sides.map((): number[] => []);
const lastDumps: string[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, side] of sides.entries()) {
    const counted = await count(side.pid, side.target);
    results[i]!.push(counted.perRequest);
    lastDumps[i] = counted.file;
    console.error(
      `${side.name}: ${Math.round(counted.perRequest).toLocaleString()} instructions/request`,
    );
  }
}
// What of each side's last round went to the JIT compiler, the garbage collector and V8's
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
async function v8Items(file: string): Promise<string> {
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
    return `${name} ${Math.round(total / REQUESTS).toLocaleString('en-US')}`;
  }).join(', ');
}
const v8 = [await v8Items(lastDumps[0]!), await v8Items(lastDumps[1]!)];

generator.stop();
api.child.kill('SIGTERM');
bare.child.kill('SIGTERM');
await dropDatabase(serverUrl, 'billing_bench_ir');
await server.stop();
await rm(dumps, { recursive: true, force: true });

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const [bareCounts, apiCounts] = results as [number[], number[]];
const ratios = apiCounts.map((n, i) => bareCounts[i]! / n);
const report = [
  `### Instructions per whoami (${server.external ? 'external PostgreSQL' : 'embedded PostgreSQL'}; callgrind, user space only; ${CONNECTIONS} connections; ${fmt(WARM_UP)} requests of warm-up, then ${ROUNDS} rounds of ${fmt(REQUESTS)} counted)`,
  '',
  '| scenario | instructions/request, each round | bare / API |',
  '| --- | --- | --- |',
  `| bare Fastify, whoami-sized body | ${bareCounts.map(fmt).join(', ')} | |`,
  `| GET /v1/auth/whoami | ${apiCounts.map(fmt).join(', ')} | ${ratios.map((r) => r.toFixed(2)).join(', ')} |`,
  '',
  `Instructions per request in the last round that went to (inclusive): bare: ${v8[0]}; API: ${v8[1]}.`,
  '',
].join('\n');
console.log(report);
process.exit(0);
