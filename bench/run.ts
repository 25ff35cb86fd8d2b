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
import { authorization, seedDatabase, startApi, type Api } from './api.ts';
import { checkOutBaseline, describeHead, type Checkout } from './baseline.ts';
import { billingRun } from './billing-run.ts';
import { benchConsole, consoleTable } from './console.ts';
import { BARE_READY, bareNodeArgs, Generator, startChild } from './child.ts';
import { peakRssMb } from './cpu.ts';
import {
  benchServer,
  dropDatabase,
  freshDatabase,
  postmasterPid,
  queryOnce,
  withDatabase,
} from './database.ts';
import { planTenants } from './dataset.ts';
import { medianRatio, summarise, type Round, type Summary } from './figures.ts';
import { inTurn, Meter, type PgbenchMeasured, type Server } from './measure.ts';
import { ingestionReport, measureIngestion } from './ingestion.ts';
import { hasPgbench, initPgbench } from './pgbench.ts';
import { report, type Results } from './report.ts';
import { MIX, type Operation, type Scenario } from './traffic.ts';

const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const MIXED_SECONDS = Number(env.BENCH_MIXED_SECONDS ?? 10);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 5);
const WARM_UP = Number(env.BENCH_WARM_UP ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 32);
const PACED_RATE = Number(env.BENCH_PACED_RATE ?? 10_000);
const TENANTS = Number(env.BENCH_TENANTS ?? 200);
const SCALE = Number(env.BENCH_SCALE ?? 1);
// BENCH_ONLY=mixed,instances,whoami,customer,list,next,invoice,create,issue,ingestion,console:
// only those (all by default); billing-run only when named (bench/billing-run.ts).
const GROUPS = [
  'mixed',
  'instances',
  'whoami',
  'customer',
  'list',
  'next',
  'invoice',
  'create',
  'issue',
  'ingestion',
  'console',
];
/** The instances scenario: the mixed load on 1, 2 and 4 API instances on one database. */
const INSTANCES = [1, 2, 4];
const ONLY = new Set(env.BENCH_ONLY ? env.BENCH_ONLY.split(',') : GROUPS);
const flag = process.argv.indexOf('--baseline');
const BASELINE = flag >= 0 ? process.argv[flag + 1] : env.BENCH_BASELINE || undefined;

const log = (message: string) => console.error(`[bench] ${message}`);
const startedAt = new Date();
const plan = planTenants(TENANTS, SCALE);

// What to undo at the end, last first, whether the run succeeded or not: processes, the
// databases, the baseline's worktree, the embedded server.
const cleanups: (() => Promise<unknown> | void)[] = [];
try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  for (const step of cleanups.reverse()) await Promise.resolve(step()).catch(() => undefined);
}
process.exit();

async function main(): Promise<void> {
  const server = await benchServer(log);
  cleanups.push(() => server.stop());
  const postmaster = await postmasterPid(server.url);
  if (postmaster === null) log('PostgreSQL is not on this machine: its CPU is not reported');
  // The console's pages on a tenant of their own, before (and apart from) the API's data set.
  if (ONLY.has('console')) console.log(consoleTable(await benchConsole(server.url, log)));
  if ([...ONLY].every((group) => group === 'console')) return;

  let checkout: Checkout | null = null;
  if (BASELINE) {
    checkout = await checkOutBaseline(BASELINE, log);
    cleanups.push(() => checkout!.remove());
  }

  // The data, then the processes: nothing else runs while a database is seeded.
  const named = (name: string) => (m: string) => log(`${name}: ${m}`);
  const ours = await seedDatabase(
    server.url,
    'billing_bench',
    process.cwd(),
    plan,
    named('current'),
    cleanups,
  );
  const theirs = checkout
    ? await seedDatabase(
        server.url,
        'billing_bench_base',
        checkout.root,
        plan,
        named('baseline'),
        cleanups,
      )
    : null;
  const pgbenchUrl = ONLY.has('create') ? await preparePgbench(server.url) : null;

  const current = await startApi(
    'current',
    process.cwd(),
    'billing_bench',
    ours,
    cleanups,
    ONLY.has('instances') ? Math.max(...INSTANCES) : 1,
  );
  const baseline =
    checkout && theirs
      ? await startApi('baseline', checkout.root, 'billing_bench_base', theirs, cleanups)
      : null;
  const apis = [current, ...(baseline ? [baseline] : [])];
  const whoami = await fetch(`${current.origin}/v1/auth/whoami`, {
    headers: authorization(current.tenants[0]!),
  });
  const bare = await startChild(
    process.execPath,
    bareNodeArgs({ whoami: await whoami.text() }),
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
      ...Object.fromEntries(
        apis.map((a) => [
          a.name,
          { origins: [a.origin, ...a.more.map((m) => m.origin)], secrets: secrets(a) },
        ]),
      ),
      bare: { origins: [`http://127.0.0.1:${bare.match[1]}`], secrets: secrets(current) },
    },
  });
  // Partial payments only if every API under test offers them: all run the same mix.
  let payments = true;
  for (const api of apis) payments &&= await generator.offersPayments(api.name);
  log(`POST /v1/invoices/{id}/payments: ${payments ? 'offered, used' : 'not offered; /pay only'}`);

  const results: Results = {
    startedAt: startedAt.toISOString(),
    seconds: 0,
    machine: {
      cpus: availableParallelism(),
      node: process.version,
      postgres: (await queryOnce<{ server_version: string }>(server.url, 'SHOW server_version'))[0]!
        .server_version,
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
      seeding: { current: ours.seeding, ...(theirs ? { baseline: theirs.seeding } : {}) },
    },
    mix: MIX,
    payments,
    single: {},
    peakRssMb: {},
    droppedLogLines: {},
    renderBacklog: {},
  };

  const meter = new Meter(generator, CONNECTIONS, postmaster, !server.external);
  const scenario = (weights: Scenario['weights'], tenants: Scenario['tenants'] = 'traffic') => ({
    weights,
    tenants,
    payments,
  });
  const single = (op: Operation, tenants?: Scenario['tenants']) => scenario({ [op]: 1 }, tenants);
  const serversOf = (api: Api, instances = 1): Server[] =>
    [{ child: api.child, origin: api.origin }, ...api.more]
      .slice(0, instances)
      .map((i) => ({ pid: i.child.pid!, origin: i.origin }));
  const on = (api: Api, s: Scenario, instances = 1) =>
    meter.load(api.name, serversOf(api, instances), api.database, s);
  const done = (name: string, s: Summary) =>
    log(
      `${name}: ${Math.round(s.rps)} req/s, p99 ${s.p99.toFixed(1)} ms, errors ${s.errors}, ` +
        `API ${s.serverCpuUs.toFixed(0)} µs/req` +
        (s.postgresCpuUs === null ? '' : `, PostgreSQL ${s.postgresCpuUs.toFixed(0)} µs/req`),
    );

  if (ONLY.has('mixed')) {
    const sides = apis.map((api) => on(api, scenario(MIX)));
    const [mine, base] = await inTurn(sides, ROUNDS, MIXED_SECONDS, Math.max(WARM_UP, 5));
    results.mixed = { current: summarise(mine!) };
    done('mixed', results.mixed.current);
    if (base) {
      results.mixed.baseline = summarise(base);
      results.mixed.ratio = medianRatio(
        results.mixed.current.rpsRounds,
        results.mixed.baseline.rpsRounds,
      );
      done('mixed (baseline)', results.mixed.baseline);
      log(`mixed throughput, current / baseline: ${results.mixed.ratio.median.toFixed(2)}`);
    }
    // Work the load left behind: issued documents not rendered yet (an API that renders after
    // answering, src/documents/render-queue.ts), so a figure cannot gain by deferring it.
    for (const api of apis) {
      const url = withDatabase(server.url, api.database);
      const left = await queryOnce<{ n: number }>(
        url,
        'SELECT count(*)::int AS n FROM document_renders',
      ).catch(() => null);
      if (left) {
        results.renderBacklog[api.name] = left[0]!.n;
        log(`${api.name}: ${left[0]!.n} issued documents left to render after the mixed load`);
      }
    }
  }

  if (ONLY.has('instances')) {
    // The same mixed load on 1, 2 and 4 instances of this API on its one database, in turn.
    const sides = INSTANCES.map((n) => on(current, scenario(MIX), n));
    const measured = await inTurn(sides, ROUNDS, MIXED_SECONDS, Math.max(WARM_UP, 5));
    const one = summarise(measured[0]!);
    results.instances = INSTANCES.map((n, i) => {
      const summary = i === 0 ? one : summarise(measured[i]!);
      done(`mixed on ${n} instance(s)`, summary);
      return { instances: n, summary, ratio: medianRatio(summary.rpsRounds, one.rpsRounds) };
    });
  }

  if (ONLY.has('whoami')) {
    const bareSide = (rate?: number) =>
      meter.load(
        'bare',
        [{ pid: bare.child.pid!, origin: null }],
        current.database,
        single('bare'),
        rate,
      );
    const whoamiSide = (rate?: number) =>
      meter.load('current', serversOf(current), current.database, single('whoami'), rate);
    const [bareRounds, whoamiRounds] = await inTurn(
      [bareSide(), whoamiSide()],
      ROUNDS,
      SECONDS,
      WARM_UP,
    );
    results.bare = summarise(bareRounds!);
    results.single.whoami = summarise(whoamiRounds!);
    done('bare', results.bare);
    done('whoami', results.single.whoami);
    // CPU per request falls as the rate rises (more requests per wake-up of the event loop),
    // and the bare route runs faster: its cost is compared with whoami's at one fixed rate,
    // the same in every run (lowered to 80 % of the slower one's throughput if that is less).
    const slower = Math.min(results.bare.rps, results.single.whoami.rps);
    const rate = Math.min(PACED_RATE, Math.round((0.8 * slower) / 100) * 100);
    const [barePaced, whoamiPaced] = await inTurn(
      [bareSide(rate), whoamiSide(rate)],
      ROUNDS,
      SECONDS,
      WARM_UP,
    );
    results.whoamiAtOneRate = {
      rate,
      bare: summarise(barePaced!),
      whoami: summarise(whoamiPaced!),
    };
    done(`bare at ${rate} req/s`, results.whoamiAtOneRate.bare);
    done(`whoami at ${rate} req/s`, results.whoamiAtOneRate.whoami);
  }
  const path = async (group: string, op: Operation, s: Scenario) => {
    if (!ONLY.has(group)) return;
    const [rounds] = await inTurn([on(current, s)], ROUNDS, SECONDS, WARM_UP);
    results.single[op] = summarise(rounds!);
    done(op, results.single[op]);
  };
  await path('customer', 'getCustomer', single('getCustomer'));
  await path('list', 'listCustomers', single('listCustomers'));
  // Deep pages live in big tenants: this one picks tenants by size.
  await path('next', 'nextPage', single('nextPage', 'size'));
  await path('invoice', 'getInvoice', single('getInvoice'));
  if (pgbenchUrl) {
    const [tpcb, create] = (await inTurn<unknown>(
      [meter.pgbench(pgbenchUrl, 'billing_pgbench'), on(current, single('createInvoice'))],
      ROUNDS,
      SECONDS,
      WARM_UP,
    )) as [PgbenchMeasured[], Round[]];
    results.single.createInvoice = summarise(create);
    results.pgbench = {
      rounds: tpcb,
      tps: tpcb.reduce((a, r) => a + r.tps, 0) / tpcb.length,
      ratio: medianRatio(
        results.single.createInvoice.rpsRounds,
        tpcb.map((r) => r.tps),
      ),
    };
    done('createInvoice', results.single.createInvoice);
    log(
      `pgbench ${Math.round(results.pgbench.tps)} tps; create / pgbench ${results.pgbench.ratio.median.toFixed(2)}`,
    );
  } else {
    await path('create', 'createInvoice', single('createInvoice'));
  }
  await path('issue', 'issueInvoice', single('issueInvoice'));
  if (ONLY.has('ingestion')) {
    results.ingestion = await measureIngestion({
      api: current,
      serverUrl: server.url,
      postmaster,
      wholeServer: !server.external,
      plan,
      mix: (rate) =>
        meter.load('current', serversOf(current), current.database, scenario(MIX), rate),
      log,
    });
  }
  if (ONLY.has('billing-run')) {
    // The other tenants' ordinary mix, paced (BENCH_RUN_MIX_RATE req/s, default 200).
    const rate = Number(env.BENCH_RUN_MIX_RATE ?? 200);
    const mixRound = meter.load(
      'current',
      serversOf(current),
      current.database,
      scenario(MIX),
      rate,
    );
    const { child } = current;
    results.billingRun = await billingRun({
      ...{ url: ours.url, origin: current.origin, api: child, postmaster, log },
      ...{ wholeServer: !server.external, database: current.database, mixRound },
    });
  }

  for (const api of apis) {
    results.peakRssMb[api.name] = await peakRssMb(api.child.pid!);
    results.droppedLogLines[api.name] = api.droppedLogLines;
  }
  results.seconds = (Date.now() - startedAt.getTime()) / 1000;
  const markdown = report(results) + ingestionReport(results.ingestion);
  console.log(markdown);
  await writeFile('bench/results.md', markdown);
  await writeFile('bench/results.json', `${JSON.stringify(results, null, 2)}\n`);
}

/** pgbench's database on the same server, or null without pgbench. */
async function preparePgbench(serverUrl: string): Promise<string | null> {
  if (!(await hasPgbench())) {
    log('pgbench is not installed (Debian: postgresql-client): no TPC-B baseline');
    return null;
  }
  const url = await freshDatabase(serverUrl, 'billing_pgbench');
  cleanups.push(() => dropDatabase(serverUrl, 'billing_pgbench'));
  await initPgbench(url);
  await queryOnce(url, 'CHECKPOINT');
  return url;
}
