// The usage ingestion scenario (BENCH_ONLY=ingestion; bench/README.md, "Usage ingestion"):
// batches of usage events sent at a fixed rate by a process of their own
// (bench/ingestion-load.ts) while the ordinary mixed load runs at a fixed rate beside them;
// the mix's p99 alone and during ingestion, run by run; CPU per 1,000 events; table sizes;
// and the current period of a customer holding 1,000,000 events.
import { fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Api } from './api.ts';
import { postgresCpu, processCpu } from './cpu.ts';
import { queryOnce, withDatabase } from './database.ts';
import { customerId, type TenantPlan } from './dataset.ts';
import { fmt, newHistogram, percentiles, spread, summarise, table, type Round } from './figures.ts';
import type { IngestionCommand, IngestionFigures } from './ingestion-load.ts';

const env = process.env;
const SECONDS = Number(env.BENCH_INGESTION_SECONDS ?? 60);
const RATE = Number(env.BENCH_INGESTION_RATE ?? 10_000);
const BATCH = Number(env.BENCH_INGESTION_BATCH ?? 500);
const RUNS = Number(env.BENCH_INGESTION_RUNS ?? 3);
const IN_FLIGHT = Number(env.BENCH_INGESTION_IN_FLIGHT ?? 16);
/** The mixed load's rate, alone and during ingestion (requests per second). */
const MIX_RATE = Number(env.BENCH_INGESTION_MIX_RATE ?? 200);
const MIX_SECONDS = 20;
/** Events of the one customer whose current period is read. */
const BIG = Number(env.BENCH_INGESTION_BIG ?? 1_000_000);
const BIG_READS = 500;
const EVENT = 'api_call';
const DAY_MS = 86_400_000;

export interface IngestionRun {
  figures: Omit<IngestionFigures, 'histogram'>;
  eventsPerSecond: number;
  p50: number;
  p99: number;
  /** The mix's p99 alone, then during ingestion, ms. */
  mixIdleP99: number;
  mixLoadedP99: number;
  mixErrors: number;
  /** The machine's 1-minute load average and CPU pressure (PSI "some", avg60 %) at the end. */
  load: number;
  cpuPressure: number | null;
  /** CPU seconds over the ingestion run, the mix's included. */
  apiCpu: number;
  postgresCpu: number | null;
  /** CPU seconds the mix's requests during the run would have cost at their cost alone. */
  mixApiCpu: number;
  mixPostgresCpu: number | null;
}

export interface IngestionResults {
  settings: { seconds: number; rate: number; batch: number; tenants: number; mixRate: number };
  runs: IngestionRun[];
  p50: number;
  p99: number;
  mixIdleP99: number;
  mixLoadedP99: number;
  /** Counted as sent: every fresh event accepted, every repeat duplicate, nothing else. */
  exact: boolean;
  tables: { name: string; rows: number; tableBytes: number; indexBytes: number }[];
  big: { events: number; seedSeconds: number; meterSeconds: number[]; p50: number; p99: number };
}

interface Context {
  api: Api;
  serverUrl: string;
  postmaster: number | null;
  wholeServer: boolean;
  plan: TenantPlan[];
  /** A round of the mixed load at `rate` requests per second. */
  mix: (rate: number) => (seconds: number) => Promise<Round>;
  log: (message: string) => void;
}

type Call = (method: string, path: string, body?: unknown) => Promise<{ id: string }>;

function caller(origin: string, secret: string): Call {
  return async (method, path, body) => {
    const answer = await fetch(`${origin}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${secret}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${text}`);
    return JSON.parse(text) as { id: string };
  };
}

const meters = [
  { eventName: EVENT, aggregation: 'sum', valueProperty: 'units', displayName: 'Units' },
  { eventName: EVENT, aggregation: 'count', displayName: 'Calls' },
];

/**
 * A customer on a test clock with BIG events over 25 days of its current period, and a
 * subscription billing both meters. The events are written in bulk SQL before the meters
 * exist, so the rollups are the product's own: each meter's creation rolls up the history.
 * Their content hashes are placeholders (the ids are never sent again).
 */
async function seedBigCustomer(context: Context, call: Call, tenantId: string) {
  const start = new Date(Math.floor(Date.now() / 1000) * 1000);
  const clock = await call('POST', '/v1/test-clocks', {
    name: 'bench',
    frozenTime: start.toISOString(),
  });
  const customer = await call('POST', '/v1/customers', {
    name: 'Big user',
    email: 'big@example.com',
    testClockId: clock.id,
  });
  const url = withDatabase(context.serverUrl, context.api.database);
  let began = performance.now();
  await queryOnce(
    url,
    `INSERT INTO usage_events (tenant_id, environment, id, event_name, customer_id, occurred_at,
                               properties, content_hash)
     SELECT $1, 'test', 'big-' || g, $2, $3, $4::timestamptz + g * ($5 * interval '1 ms'),
            jsonb_build_object('units', 1 + g % 100, 'endpoint', '/v1/search'),
            sha256(('big-' || g)::bytea)
       FROM generate_series(0, $6 - 1) g`,
    [tenantId, EVENT, customer.id, start.toISOString(), (25 * DAY_MS) / BIG, BIG],
  );
  await queryOnce(url, 'VACUUM (ANALYZE) usage_events');
  const seedSeconds = (performance.now() - began) / 1000;
  const meterSeconds: number[] = [];
  const meterIds: string[] = [];
  for (const body of meters) {
    began = performance.now();
    meterIds.push((await call('POST', '/v1/meters', body)).id);
    meterSeconds.push((performance.now() - began) / 1000);
  }
  const product = await call('POST', '/v1/products', { name: 'API' });
  const items = [];
  for (const meterId of meterIds) {
    const price = await call('POST', '/v1/prices', {
      productId: product.id,
      currency: 'eur',
      type: 'recurring',
      recurring: { interval: 'month', usage: 'metered', meterId },
      billingScheme: 'per_unit',
      unitAmountDecimal: '0.01',
    });
    items.push({ priceId: price.id });
  }
  const subscription = await call('POST', '/v1/subscriptions', { customerId: customer.id, items });
  // Into the period, past every event: nothing falls due on the way.
  await call('POST', `/v1/test-clocks/${clock.id}/advance`, {
    frozenTime: new Date(start.getTime() + 26 * DAY_MS).toISOString(),
  });
  for (;;) {
    const state = (await call('GET', `/v1/test-clocks/${clock.id}`)) as { status?: string };
    if (state.status === 'ready') break;
    await sleep(100);
  }
  return { subscriptionId: subscription.id, seedSeconds, meterSeconds };
}

/** Reads the subscription's current usage BIG_READS times, one at a time: p50 and p99, ms. */
async function readUsage(call: Call, subscriptionId: string) {
  const h = newHistogram();
  for (let i = 0; i < BIG_READS; i++) {
    const began = performance.now();
    const usage = (await call('GET', `/v1/subscriptions/${subscriptionId}/usage`)) as unknown as {
      data: { value: string }[];
    };
    h.recordValue(Math.round((performance.now() - began) * 1000));
    if (i === 0 && usage.data.length !== 2) throw new Error(`usage: ${JSON.stringify(usage)}`);
  }
  const figures = {
    p50: h.getValueAtPercentile(50) / 1000,
    p99: h.getValueAtPercentile(99) / 1000,
  };
  h.destroy();
  return figures;
}

function send(command: IngestionCommand): Promise<IngestionFigures> {
  const child = fork('bench/ingestion-load.ts', [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (figures: IngestionFigures) => {
      child.kill('SIGTERM');
      resolve(figures);
    });
    child.once('exit', (code) => reject(new Error(`the usage sender exited (${code})`)));
    child.send(command);
  });
}

/** The share of the last minute some task waited for a CPU (Linux PSI), per cent; or null. */
async function cpuPressure(): Promise<number | null> {
  const text = await readFile('/proc/pressure/cpu', 'utf8').catch(() => '');
  const match = /^some avg10=\S+ avg60=(\S+)/m.exec(text);
  return match ? Number(match[1]) : null;
}

export async function measureIngestion(context: Context): Promise<IngestionResults> {
  const { api, log } = context;
  // The four tenants of 100,000 customers (or the largest after the first in a small plan).
  const senders = context.plan.slice(1, 5);
  const call = (index: number) => caller(api.origin, api.tenants[index]!.secrets[0]);
  log(`ingestion: ${fmt(BIG)} events of one customer, then its meters …`);
  const big = await seedBigCustomer(context, call(1), api.tenants[1]!.tenantId);
  log(
    `ingestion: seeded in ${big.seedSeconds.toFixed(1)} s; meters created in ` +
      big.meterSeconds.map((s) => `${s.toFixed(1)} s`).join(', '),
  );
  for (const t of senders.slice(1))
    for (const body of meters) await call(t.index)('POST', '/v1/meters', body);
  const bigReads = await readUsage(call(1), big.subscriptionId);
  log(
    `ingestion: current usage of ${fmt(BIG)} events p50 ${bigReads.p50} ms, p99 ${bigReads.p99} ms`,
  );

  const apiPid = api.child.pid!;
  const database = new Set([api.database]);
  const pgCpu = () =>
    context.postmaster === null
      ? Promise.resolve(null)
      : postgresCpu(context.postmaster, database, context.wholeServer);
  const mix = context.mix(MIX_RATE);
  await mix(5);
  const runs: IngestionRun[] = [];
  const histograms: string[] = [];
  const idleRounds: Round[] = [];
  const loadedRounds: Round[] = [];
  // What a run wrote and read: WAL (bytes, full-page images, records), rollup rows inserted
  // and updated, pages read into the buffers and found there; counters read before and after.
  const runStats = async () =>
    (
      await queryOnce<
        Record<'walBytes' | 'fpi' | 'records' | 'ins' | 'upd' | 'read' | 'hit', string>
      >(
        withDatabase(context.serverUrl, api.database),
        `SELECT w.wal_bytes AS "walBytes", w.wal_fpi AS fpi, w.wal_records AS records,
                t.n_tup_ins AS ins, t.n_tup_upd AS upd, d.blks_read AS read, d.blks_hit AS hit
           FROM pg_stat_wal w, pg_stat_user_tables t, pg_stat_database d
          WHERE t.relname = 'usage_rollups' AND d.datname = current_database()`,
      )
    )[0]!;
  for (let run = 0; run < RUNS; run++) {
    const idle = await mix(MIX_SECONDS);
    idleRounds.push(idle);
    const stats0 = await runStats();
    const [api0, pg0] = [await processCpu(apiPid), await pgCpu()];
    const [figures, loaded] = await Promise.all([
      send({
        origin: api.origin,
        tenants: senders.map((t) => ({
          secret: api.tenants[t.index]!.secrets[1],
          customerPrefix: customerId(t.index, 0).slice(0, -8),
          customers: t.customers,
        })),
        eventName: EVENT,
        seconds: SECONDS,
        rate: RATE,
        batch: BATCH,
        duplicates: 0.01,
        inFlight: IN_FLIGHT,
      }),
      // The mix inside the ingestion's minute, clear of its first and last seconds.
      sleep(2000).then(() => mix(SECONDS - 4)),
    ]);
    const [api1, pg1] = [await processCpu(apiPid), await pgCpu()];
    const stats1 = await runStats();
    const grew = (name: keyof typeof stats1) => Number(stats1[name]) - Number(stats0[name]);
    log(
      `ingestion run ${run + 1}: rollup rows inserted ${grew('ins')}, updated ${grew('upd')}; ` +
        `pages read into the buffers ${grew('read')}, found there ${grew('hit')}; WAL ` +
        `${(grew('walBytes') / 2 ** 20).toFixed(0)} MB, ${grew('fpi')} full-page images, ` +
        `${grew('records')} records`,
    );
    loadedRounds.push(loaded);
    histograms.push(figures.histogram);
    const { histogram, ...rest } = figures;
    const batch = percentiles([histogram]);
    const idleSummary = summarise([idle]);
    const loadedSummary = summarise([loaded]);
    const o = figures.outcomes;
    const entry: IngestionRun = {
      figures: rest,
      eventsPerSecond: (o.accepted + o.duplicate + o.error) / figures.seconds,
      ...batch,
      mixIdleP99: idleSummary.p99,
      mixLoadedP99: loadedSummary.p99,
      mixErrors: idleSummary.errors + loadedSummary.errors,
      load: loadavg()[0]!,
      cpuPressure: await cpuPressure(),
      apiCpu: api1 - api0,
      postgresCpu: pg0 === null || pg1 === null ? null : pg1 - pg0,
      // The mix's requests during the run, at the CPU per request it had alone.
      mixApiCpu: (idle.serverCpu / idleSummary.requests) * loadedSummary.requests,
      mixPostgresCpu:
        idle.postgresCpu === null
          ? null
          : (idle.postgresCpu / idleSummary.requests) * loadedSummary.requests,
    };
    runs.push(entry);
    const idleP99 = new Map(idleSummary.operations.map((o) => [o.op, o.p99]));
    log(
      `ingestion run ${run + 1}, the mix's slowest operations (p99 alone → during, ms): ` +
        [...loadedSummary.operations]
          .sort((a, b) => b.p99 - a.p99)
          .slice(0, 6)
          .map(
            (o) =>
              `${o.name} ${idleP99.get(o.op)?.toFixed(1)} → ${o.p99.toFixed(1)} (${o.requests})`,
          )
          .join('; '),
    );
    log(
      `ingestion run ${run + 1}: ${fmt(entry.eventsPerSecond)} events/s, batch p50 ` +
        `${batch.p50} ms p99 ${batch.p99} ms, late ${figures.late}, outcomes ` +
        `${JSON.stringify(o)} of ${JSON.stringify(figures.sent)}, failed ${figures.failed}` +
        `${figures.samples.length ? ` ${figures.samples.join('; ')}` : ''}; mix p99 ` +
        `${idleSummary.p99.toFixed(1)} → ${loadedSummary.p99.toFixed(1)} ms; load ` +
        `${entry.load.toFixed(1)}, CPU pressure ${entry.cpuPressure} %`,
    );
  }
  const url = withDatabase(context.serverUrl, api.database);
  const tables = [];
  for (const name of ['usage_events', 'usage_rollups']) {
    const [row] = await queryOnce<{ rows: string; t: string; i: string }>(
      url,
      `SELECT (SELECT count(*) FROM ${name}) AS rows, pg_table_size($1) AS t,
              pg_indexes_size($1) AS i`,
      [name],
    );
    tables.push({
      name,
      rows: Number(row!.rows),
      tableBytes: Number(row!.t),
      indexBytes: Number(row!.i),
    });
  }
  return {
    settings: {
      seconds: SECONDS,
      rate: RATE,
      batch: BATCH,
      tenants: senders.length,
      mixRate: MIX_RATE,
    },
    runs,
    ...percentiles(histograms),
    mixIdleP99: summarise(idleRounds).p99,
    mixLoadedP99: summarise(loadedRounds).p99,
    exact: runs.every(
      (r) =>
        r.figures.failed === 0 &&
        r.figures.outcomes.error === 0 &&
        r.figures.outcomes.accepted === r.figures.sent.fresh &&
        r.figures.outcomes.duplicate === r.figures.sent.again,
    ),
    tables,
    big: { events: BIG, seedSeconds: big.seedSeconds, meterSeconds: big.meterSeconds, ...bigReads },
  };
}

const yes = (ok: boolean) => (ok ? 'yes' : '**no**');
const mb = (bytes: number) => `${fmt(bytes / 2 ** 20)} MB`;

/** The report's section on usage ingestion (empty when the scenario did not run). */
export function ingestionReport(r: IngestionResults | undefined): string {
  if (!r) return '';
  const eps = r.runs.map((x) => x.eventsPerSecond);
  const ratios = r.runs.map((x) => x.mixLoadedP99 / x.mixIdleP99);
  const mixErrors = r.runs.reduce((n, x) => n + x.mixErrors, 0);
  const events = r.runs.map((x) => x.figures.outcomes.accepted + x.figures.outcomes.duplicate);
  const perThousand = (cpu: (x: IngestionRun) => number | null) => {
    const values = r.runs.map((x, i) => {
      const c = cpu(x);
      return c === null ? null : (1e6 * c) / events[i]!;
    });
    return values.includes(null) ? 'not measured' : spread(values as number[]);
  };
  const { settings: s } = r;
  return `
## Usage ingestion

${fmt(s.rate)} events/s offered in batches of ${s.batch} (1 % ids sent again) over ${s.tenants} tenants for ${s.seconds} s, ${r.runs.length} runs, beside the mixed load at ${fmt(s.mixRate)} req/s; each run after ${MIX_SECONDS} s of the mixed load alone.

${table(
  ['target', 'measured', 'goal', 'met'],
  [
    ['events/s, each run', spread(eps), `≥ ${fmt(s.rate)}`, yes(Math.min(...eps) >= s.rate * 0.99)],
    [
      'p99 per batch, all runs (each run)',
      `${fmt(r.p99)} ms (${spread(r.runs.map((x) => x.p99))})`,
      '< 250 ms',
      yes(r.p99 < 250),
    ],
    [
      'outcomes exactly as sent; errors of the mix',
      `${r.exact ? 'yes' : 'no'}; ${fmt(mixErrors)}`,
      'yes; 0',
      yes(r.exact && mixErrors === 0),
    ],
    [
      'mix p99 during / alone (each run)',
      `${fmt(r.mixLoadedP99 / r.mixIdleP99, 2)} (${spread(ratios, 2)})`,
      '< 2',
      yes(Math.max(...ratios) < 2),
    ],
    [
      `current usage of a customer with ${fmt(r.big.events)} events, p99`,
      `${fmt(r.big.p99, 1)} ms`,
      '< 50 ms',
      yes(r.big.p99 < 50),
    ],
  ],
)}

${table(
  [
    'run',
    'events/s',
    'batch p50 ms',
    'batch p99 ms',
    'late starts',
    'accepted',
    'duplicate',
    'errors',
    'mix p99 alone / during ms',
    'load, CPU pressure',
    'API CPU ms per 1,000 events',
    'PostgreSQL CPU ms per 1,000 events',
  ],
  r.runs.map((x, i) => [
    String(i + 1),
    fmt(x.eventsPerSecond),
    fmt(x.p50),
    fmt(x.p99),
    fmt(x.figures.late),
    fmt(x.figures.outcomes.accepted),
    fmt(x.figures.outcomes.duplicate),
    fmt(x.figures.outcomes.error + x.figures.failed),
    `${fmt(x.mixIdleP99, 1)} / ${fmt(x.mixLoadedP99, 1)}`,
    `${fmt(x.load, 1)}, ${x.cpuPressure === null ? '–' : `${fmt(x.cpuPressure)} %`}`,
    fmt((1e6 * (x.apiCpu - x.mixApiCpu)) / events[i]!),
    x.postgresCpu === null || x.mixPostgresCpu === null
      ? '–'
      : fmt((1e6 * (x.postgresCpu - x.mixPostgresCpu)) / events[i]!),
  ]),
)}

CPU per 1,000 events is the run's CPU less the mixed load's (its requests during the run at the CPU per request it had alone); with the mix's left in: API ${perThousand((x) => x.apiCpu)}, PostgreSQL ${perThousand((x) => x.postgresCpu)} ms per 1,000 events.

${table(
  ['table', 'rows', 'table', 'indexes', 'bytes per row'],
  r.tables.map((t) => [
    t.name,
    fmt(t.rows),
    mb(t.tableBytes),
    mb(t.indexBytes),
    fmt((t.tableBytes + t.indexBytes) / Math.max(1, t.rows)),
  ]),
)}

The customer with ${fmt(r.big.events)} events: written in bulk in ${fmt(r.big.seedSeconds, 1)} s, rolled up by each meter's creation in ${r.big.meterSeconds.map((x) => `${fmt(x, 1)} s`).join(' and ')}; \`GET /v1/subscriptions/{id}/usage\` (two metered items) ${BIG_READS} times one at a time: p50 ${fmt(r.big.p50, 1)} ms, p99 ${fmt(r.big.p99, 1)} ms.
`;
}
