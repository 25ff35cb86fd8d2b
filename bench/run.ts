// `npm run bench`: the API under traffic shaped like real use, on a data set shaped like a
// real installation's, next to its physical ceilings, in one run on one machine. See
// bench/README.md for the method; the figures go to stdout, bench/results.md and
// bench/results.json.
//
// `npm run bench -- --baseline <git-ref>` (or BENCH_BASELINE=<ref>) also checks that ref out
// into a temporary git worktree, seeds it a database of its own, and runs the mixed load
// against both, round by round in turn.
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { checkOutBaseline, describeHead, type Checkout } from './baseline.ts';
import {
  API_NODE_ARGS,
  API_READY,
  apiEnv,
  BARE_READY,
  bareNodeArgs,
  Generator,
  startChild,
} from './child.ts';
import { peakRssMb, postgresCpu, processCpu } from './cpu.ts';
import { benchServer, dropDatabase, freshDatabase, postmasterPid, queryOnce } from './database.ts';
import { customerId, invoiceId, planTenants } from './dataset.ts';
import { medianRatio, summarise, type Round, type Summary } from './figures.ts';
import { hasPgbench, initPgbench, pgbench, type PgbenchRound } from './pgbench.ts';
import { makeTenants, type TenantKeys } from './project.ts';
import { report, type Results, type SeedReport } from './report.ts';
import { seed } from './seed.ts';
import { MIX, type Operation, type Scenario } from './traffic.ts';

const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const MIXED_SECONDS = Number(env.BENCH_MIXED_SECONDS ?? 10);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 5);
const WARM_UP = Number(env.BENCH_WARM_UP ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 32);
const TENANTS = Number(env.BENCH_TENANTS ?? 200);
const SCALE = Number(env.BENCH_SCALE ?? 1);
// BENCH_ONLY=mixed,whoami,customer,list,next,invoice,create,issue: only those (all by default).
const GROUPS = ['mixed', 'whoami', 'customer', 'list', 'next', 'invoice', 'create', 'issue'];
const ONLY = new Set(env.BENCH_ONLY ? env.BENCH_ONLY.split(',') : GROUPS);
const flag = process.argv.indexOf('--baseline');
const BASELINE = flag >= 0 ? process.argv[flag + 1] : env.BENCH_BASELINE || undefined;

const log = (message: string) => console.error(`[bench] ${message}`);
const startedAt = new Date();
const plan = planTenants(TENANTS, SCALE);

/** An API under test: its code, database and process. */
interface Api {
  name: 'current' | 'baseline';
  root: string;
  database: string;
  tenants: TenantKeys[];
  seeding: SeedReport;
  pid: number;
  origin: string;
  droppedLogLines: number;
}

const cleanups: (() => Promise<unknown> | void)[] = [];
async function cleanUp(): Promise<void> {
  for (const step of cleanups.reverse()) await Promise.resolve(step()).catch(() => undefined);
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
process.exit();

async function main(): Promise<void> {
  const server = await benchServer(log);
  cleanups.push(() => server.stop());
  const postmaster = await postmasterPid(server.url);
  if (postmaster === null) log('PostgreSQL is not on this machine: its CPU is not reported');
  const postgresVersion = (
    await queryOnce<{ server_version: string }>(server.url, 'SHOW server_version')
  )[0]!.server_version;

  let checkout: Checkout | null = null;
  if (BASELINE) {
    checkout = await checkOutBaseline(BASELINE, log);
    cleanups.push(() => checkout!.remove());
  }

  // --- data ------------------------------------------------------------------------------
  const prepare = async (name: Api['name'], root: string, database: string) => {
    const url = await freshDatabase(server.url, database);
    cleanups.push(() => dropDatabase(server.url, database));
    log(`${name}: ${plan.length} tenants with two keys each (${root}) …`);
    let started = performance.now();
    const tenants = await makeTenants(root, url, plan.length);
    const keys = (performance.now() - started) / 1000;
    started = performance.now();
    const times = await seed(url, plan, tenants, (m) => log(`${name}: ${m}`));
    const [counts] = await queryOnce<{ lines: string }>(
      url,
      'SELECT count(*) AS lines FROM invoice_lines',
    );
    const seeding: SeedReport = {
      ...times,
      keys,
      total: keys + (performance.now() - started) / 1000,
      lineRows: Number(counts!.lines),
    };
    log(`${name}: seeded in ${seeding.total.toFixed(0)} s`);
    return { url, tenants, seeding };
  };
  const currentData = await prepare('current', process.cwd(), 'billing_bench');
  const baselineData = checkout
    ? await prepare('baseline', checkout.root, 'billing_bench_base')
    : null;

  const pgbenchAvailable = ONLY.has('create') && (await hasPgbench());
  const pgbenchUrl = pgbenchAvailable ? await freshDatabase(server.url, 'billing_pgbench') : null;
  if (pgbenchUrl) {
    cleanups.push(() => dropDatabase(server.url, 'billing_pgbench'));
    await initPgbench(pgbenchUrl);
    await queryOnce(pgbenchUrl, 'CHECKPOINT');
  } else if (ONLY.has('create')) {
    log('pgbench is not installed (Debian: postgresql-client): no TPC-B baseline');
  }

  // --- processes -------------------------------------------------------------------------
  const startApi = async (
    name: Api['name'],
    root: string,
    database: string,
    data: { url: string; tenants: TenantKeys[]; seeding: SeedReport },
  ): Promise<Api> => {
    const { child, match } = await startChild(
      process.execPath,
      API_NODE_ARGS,
      apiEnv(data.url),
      API_READY,
      root,
    );
    cleanups.push(() => void child.kill('SIGTERM'));
    const api: Api = {
      name,
      root,
      database,
      tenants: data.tenants,
      seeding: data.seeding,
      pid: child.pid!,
      origin: match[1]!,
      droppedLogLines: 0,
    };
    // The API drops log lines, and says how many, when its standard output is not drained in
    // time: the run reports them.
    child.stdout?.on('data', (chunk: Buffer) => {
      if (!chunk.includes('log lines dropped')) return;
      for (const m of chunk.toString().matchAll(/"dropped":(\d+)/g))
        api.droppedLogLines += Number(m[1]);
    });
    await checkSeededData(api);
    return api;
  };
  const current = await startApi('current', process.cwd(), 'billing_bench', currentData);
  const baseline =
    checkout && baselineData
      ? await startApi('baseline', checkout.root, 'billing_bench_base', baselineData)
      : null;

  const whoamiBody = await (
    await fetch(`${current.origin}/v1/auth/whoami`, { headers: auth(current.tenants[0]!) })
  ).text();
  const bare = await startChild(
    process.execPath,
    bareNodeArgs({ whoami: whoamiBody }),
    env,
    BARE_READY,
  );
  cleanups.push(() => void bare.child.kill('SIGTERM'));

  const generator = new Generator();
  cleanups.push(() => generator.stop());
  const secrets = (api: Api) => api.tenants.map((t) => t.secrets);
  await generator.setup({
    type: 'setup',
    plan,
    targets: {
      current: { origin: current.origin, secrets: secrets(current) },
      bare: { origin: `http://127.0.0.1:${bare.match[1]}`, secrets: secrets(current) },
      ...(baseline ? { baseline: { origin: baseline.origin, secrets: secrets(baseline) } } : {}),
    },
  });
  // Partial payments only where every API under test offers them: both run the same mix.
  const payments =
    (await generator.offersPayments('current')) &&
    (baseline === null || (await generator.offersPayments('baseline')));
  log(`POST /v1/invoices/{id}/payments: ${payments ? 'offered, used' : 'not offered; /pay only'}`);

  // --- measuring -------------------------------------------------------------------------
  const scenario = (
    weights: Scenario['weights'],
    tenants: Scenario['tenants'] = 'traffic',
  ): Scenario => ({
    weights,
    tenants,
    payments,
  });
  const single = (op: Operation, tenants?: Scenario['tenants']) => scenario({ [op]: 1 }, tenants);
  type Side = (seconds: number) => Promise<Round>;
  const side =
    (target: 'current' | 'baseline' | 'bare', s: Scenario): Side =>
    async (seconds) => {
      const pid =
        target === 'current'
          ? current.pid
          : target === 'baseline'
            ? baseline!.pid
            : bare.child.pid!;
      const databases = new Set([target === 'baseline' ? baseline!.database : current.database]);
      const postgres = () =>
        postmaster === null
          ? Promise.resolve(null)
          : postgresCpu(postmaster, databases, !server.external);
      const [cpu0, pg0] = [await processCpu(pid), await postgres()];
      const figures = await generator.round({
        target,
        scenario: s,
        seconds,
        connections: CONNECTIONS,
      });
      const [cpu1, pg1] = [await processCpu(pid), await postgres()];
      return {
        figures,
        serverCpu: cpu1 - cpu0,
        postgresCpu: pg0 === null || pg1 === null ? null : pg1 - pg0,
      };
    };
  /** Sides in turn (a, b, a, b, …) after a warm-up of each: drift of this shared machine's
   *  speed falls on every side alike. */
  const inTurn = async <T>(
    sides: ((seconds: number) => Promise<T>)[],
    seconds: number,
    warmUp: number,
  ) => {
    for (const s of sides) await s(warmUp);
    const rounds = sides.map((): T[] => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, s] of sides.entries()) rounds[i]!.push(await s(seconds));
    }
    return rounds;
  };
  const done = (name: string, s: Summary) =>
    log(
      `${name}: ${Math.round(s.rps)} req/s, p99 ${s.p99.toFixed(1)} ms, errors ${s.errors}, API ${s.serverCpuUs.toFixed(0)} µs/req` +
        (s.postgresCpuUs === null ? '' : `, PostgreSQL ${s.postgresCpuUs.toFixed(0)} µs/req`),
    );

  const results: Results = {
    startedAt: startedAt.toISOString(),
    seconds: 0,
    machine: {
      cpus: availableParallelism(),
      node: process.version,
      postgres: postgresVersion,
      database: server.external ? 'external (DATABASE_URL)' : 'embedded',
      postgresCpu:
        postmaster === null
          ? 'not on this machine'
          : server.external
            ? 'shared server: backends of the bench databases and the server processes'
            : 'whole server',
    },
    code: {
      current: await describeHead(),
      ...(checkout ? { baseline: { ref: BASELINE!, commit: checkout.commit } } : {}),
    },
    settings: {
      connections: CONNECTIONS,
      rounds: ROUNDS,
      seconds: SECONDS,
      mixedSeconds: MIXED_SECONDS,
      warmUp: WARM_UP,
      tenants: TENANTS,
      scale: SCALE,
    },
    dataset: {
      tenants: plan.length,
      customers: plan.reduce((a, t) => a + t.customers, 0),
      invoices: plan.reduce((a, t) => a + t.invoices, 0),
      largest: plan.slice(0, 5).map((t) => t.customers),
      smallest: Math.min(...plan.map((t) => t.customers)),
      seeding: { current: current.seeding, ...(baseline ? { baseline: baseline.seeding } : {}) },
    },
    mix: MIX,
    payments,
    single: {},
    peakRssMb: {},
    droppedLogLines: {},
  };

  if (ONLY.has('mixed')) {
    const mixed = scenario(MIX);
    const sides = [side('current', mixed), ...(baseline ? [side('baseline', mixed)] : [])];
    const [ours, theirs] = await inTurn(sides, MIXED_SECONDS, Math.max(WARM_UP, 5));
    results.mixed = { current: summarise(ours!) };
    done('mixed (current)', results.mixed.current);
    if (theirs) {
      results.mixed.baseline = summarise(theirs);
      results.mixed.ratio = medianRatio(
        results.mixed.current.rpsRounds,
        results.mixed.baseline.rpsRounds,
      );
      done('mixed (baseline)', results.mixed.baseline);
      log(`mixed throughput, current / baseline: ${results.mixed.ratio.median.toFixed(2)}`);
    }
  }

  const path = async (group: string, name: Operation, s: Scenario) => {
    if (!ONLY.has(group)) return;
    const [rounds] = await inTurn([side('current', s)], SECONDS, WARM_UP);
    results.single[name] = summarise(rounds!);
    done(name, results.single[name]);
  };
  if (ONLY.has('whoami')) {
    const [bareRounds, whoami] = await inTurn(
      [side('bare', single('bare')), side('current', single('whoami'))],
      SECONDS,
      WARM_UP,
    );
    results.bare = summarise(bareRounds!);
    results.single.whoami = summarise(whoami!);
    done('bare', results.bare);
    done('whoami', results.single.whoami);
  }
  await path('customer', 'getCustomer', single('getCustomer'));
  await path('list', 'listCustomers', single('listCustomers'));
  await path('next', 'nextPage', single('nextPage', 'size'));
  await path('invoice', 'getInvoice', single('getInvoice'));
  if (ONLY.has('create')) {
    const create = side('current', single('createInvoice'));
    if (pgbenchUrl) {
      const pgbenchDatabases = new Set(['billing_pgbench']);
      const tpcb = async (seconds: number) => {
        const pg0 =
          postmaster === null
            ? null
            : await postgresCpu(postmaster, pgbenchDatabases, !server.external);
        const r = await pgbench(pgbenchUrl, CONNECTIONS, seconds);
        const pg1 =
          postmaster === null
            ? null
            : await postgresCpu(postmaster, pgbenchDatabases, !server.external);
        return { ...r, postgresCpu: pg0 === null || pg1 === null ? null : pg1 - pg0 };
      };
      const [tpcbRounds, createRounds] = (await inTurn<PgbenchRound | Round>(
        [tpcb, create],
        SECONDS,
        WARM_UP,
      )) as [(PgbenchRound & { postgresCpu: number | null })[], Round[]];
      results.single.createInvoice = summarise(createRounds);
      results.pgbench = {
        rounds: tpcbRounds,
        tps: tpcbRounds.reduce((a, r) => a + r.tps, 0) / tpcbRounds.length,
        ratio: medianRatio(
          results.single.createInvoice.rpsRounds,
          tpcbRounds.map((r) => r.tps),
        ),
      };
      log(
        `pgbench: ${Math.round(results.pgbench.tps)} tps; create / pgbench ${results.pgbench.ratio.median.toFixed(2)}`,
      );
    } else {
      const [createRounds] = await inTurn([create], SECONDS, WARM_UP);
      results.single.createInvoice = summarise(createRounds!);
    }
    done('createInvoice', results.single.createInvoice);
  }
  await path('issue', 'issueInvoice', single('issueInvoice'));

  for (const api of [current, ...(baseline ? [baseline] : [])]) {
    results.peakRssMb[api.name] = await peakRssMb(api.pid);
    results.droppedLogLines[api.name] = api.droppedLogLines;
  }
  results.seconds = (Date.now() - startedAt.getTime()) / 1000;
  const markdown = report(results);
  console.log(markdown);
  await writeFile('bench/results.md', markdown);
  await writeFile('bench/results.json', `${JSON.stringify(results, null, 2)}\n`);
}

function auth(tenant: TenantKeys): Record<string, string> {
  return { authorization: `Bearer ${tenant.secrets[0]}` };
}

/** The API serves the seeded rows under the ids the generator will ask for. */
async function checkSeededData(api: Api): Promise<void> {
  const tenant = 0;
  for (const path of [
    `/v1/customers/${customerId(tenant, 1)}`,
    `/v1/invoices/${invoiceId(tenant, 2)}`,
  ]) {
    const answer = await fetch(`${api.origin}${path}`, { headers: auth(api.tenants[tenant]!) });
    if (answer.status !== 200) {
      throw new Error(`${api.name}: GET ${path} answered ${answer.status}: ${await answer.text()}`);
    }
  }
}
