// The run's figures as markdown (stdout and bench/results.md) beside the JSON of the same
// (bench/results.json): targets first, then the mixed load, the single paths, the data set.
import type { BillingRunResults } from './billing-run.ts';
import { fmt, medianRatio, spread, table, type Summary } from './figures.ts';
import type { IngestionResults } from './ingestion.ts';
import type { PgbenchRound } from './pgbench.ts';
import type { SeedReport } from './seed.ts';
import { OPERATION_NAMES, type Operation } from './traffic.ts';

export interface Results {
  startedAt: string;
  seconds: number;
  machine: { cpus: number; node: string; postgres: string; database: string; postgresCpu: string };
  code: { current: string; baseline?: { ref: string; commit: string } };
  settings: {
    connections: number;
    rounds: number;
    seconds: number;
    mixedSeconds: number;
    warmUp: number;
    tenants: number;
    scale: number;
  };
  dataset: {
    tenants: number;
    customers: number;
    invoices: number;
    largest: number[];
    smallest: number;
    seeding: { current: SeedReport; baseline?: SeedReport };
  };
  mix: Partial<Record<Operation, number>>;
  payments: boolean;
  mixed?: { current: Summary; baseline?: Summary; ratio?: Ratio };
  /** The mixed load on 1, 2 and 4 instances on one database; ratio to one instance. */
  instances?: { instances: number; summary: Summary; ratio: Ratio }[];
  single: Partial<Record<Operation, Summary>>;
  bare?: Summary;
  /** whoami and the bare route paced at one rate, for their CPU per request. */
  whoamiAtOneRate?: { rate: number; bare: Summary; whoami: Summary };
  pgbench?: {
    rounds: (PgbenchRound & { postgresCpu: number | null })[];
    tps: number;
    ratio: Ratio;
  };
  peakRssMb: Partial<Record<'current' | 'baseline', number>>;
  /** The billing run at scale (BENCH_ONLY=billing-run). */
  billingRun?: BillingRunResults;
  droppedLogLines: Partial<Record<'current' | 'baseline', number>>;
  /** Issued documents not rendered yet right after the mixed load (rendered after answering). */
  renderBacklog: Partial<Record<'current' | 'baseline', number>>;
  ingestion?: IngestionResults;
  targets?: Target[];
}

interface Ratio {
  median: number;
  rounds: number[];
}

interface Target {
  target: string;
  measured: string;
  goal: string;
  met: boolean | null;
}

const ms = (n: number) => fmt(n, n < 10 ? 1 : 0);
const us = (n: number | null) => (n === null ? '–' : fmt(n));
const ratios = (r: Ratio) => r.rounds.map((x) => x.toFixed(2)).join(', ');

// The targets of the lighter-requests work (bench/README.md, "Lighter requests"): the mixed
// load side by side with a baseline, each a median of the round-by-round ratios.
const GOALS = {
  throughput: 1.5,
  apiCpu: 0.6,
  postgresCpu: 0.8,
  p99: 0.5,
  issueP99: 0.3,
  whoamiOverBare: 1.5,
  createOverPgbench: 0.4,
  peakRssMb: 300,
};

function targets(r: Results): Target[] {
  const list: Target[] = [];
  const mixed = r.mixed?.current;
  const base = r.mixed?.baseline;
  const versus = 'not measured (run with --baseline <ref>)';
  list.push({
    target: 'mixed throughput over the baseline’s',
    measured: r.mixed?.ratio
      ? `${r.mixed.ratio.median.toFixed(2)} (rounds ${ratios(r.mixed.ratio)})`
      : versus,
    goal: `≥ ${GOALS.throughput}`,
    met: r.mixed?.ratio ? r.mixed.ratio.median >= GOALS.throughput : null,
  });
  if (mixed && base) {
    const api = medianRatio(mixed.serverCpuUsRounds, base.serverCpuUsRounds);
    list.push({
      target: 'API CPU per request, mixed load, over the baseline’s',
      measured: `${api.median.toFixed(2)} (${fmt(mixed.serverCpuUs)} / ${fmt(base.serverCpuUs)} µs; rounds ${ratios(api)})`,
      goal: `≤ ${GOALS.apiCpu}`,
      met: api.median <= GOALS.apiCpu,
    });
    if (mixed.postgresCpuUs !== null && base.postgresCpuUs !== null) {
      const pg = medianRatio(mixed.postgresCpuUsRounds, base.postgresCpuUsRounds);
      list.push({
        target: 'PostgreSQL CPU per request, mixed load, over the baseline’s',
        measured: `${pg.median.toFixed(2)} (${fmt(mixed.postgresCpuUs)} / ${fmt(base.postgresCpuUs)} µs; rounds ${ratios(pg)})`,
        goal: `≤ ${GOALS.postgresCpu}`,
        met: pg.median <= GOALS.postgresCpu,
      });
    }
    for (const op of mixed.operations) {
      const theirs = base.operations.find((o) => o.op === op.op);
      if (!theirs) continue;
      const goal = op.op === 'issueInvoice' ? GOALS.issueP99 : GOALS.p99;
      const x = op.p99 / theirs.p99;
      list.push({
        target: `p99 of ${op.name} in the mix over the baseline’s`,
        measured: `${x.toFixed(2)} (${ms(op.p99)} / ${ms(theirs.p99)} ms)`,
        goal: `≤ ${goal}`,
        met: x <= goal,
      });
    }
  }
  const summaries = [
    ...(r.mixed ? [r.mixed.current] : []),
    ...(r.mixed?.baseline ? [r.mixed.baseline] : []),
    ...(r.instances ?? []).map((i) => i.summary),
    ...Object.values(r.single),
    ...(r.whoamiAtOneRate ? [r.whoamiAtOneRate.whoami] : []),
  ];
  const errors = summaries.reduce((a, s) => a + s.errors, 0);
  list.push({
    target: 'errors (non-2xx, failed connections)',
    measured: String(errors),
    goal: '0',
    met: errors === 0,
  });
  if (r.peakRssMb.current !== undefined) {
    list.push({
      target: 'API peak resident memory (VmHWM), render threads included',
      measured:
        `${r.peakRssMb.current} MB` +
        (r.peakRssMb.baseline === undefined ? '' : ` (baseline ${r.peakRssMb.baseline} MB)`),
      goal: `< ${GOALS.peakRssMb} MB`,
      met: r.peakRssMb.current < GOALS.peakRssMb,
    });
  }
  if (r.whoamiAtOneRate) {
    const { rate, bare, whoami } = r.whoamiAtOneRate;
    const x = whoami.serverCpuUs / bare.serverCpuUs;
    list.push({
      target: 'whoami CPU per request over the bare route’s, both at one rate',
      measured: `${x.toFixed(2)} (${fmt(whoami.serverCpuUs)} / ${fmt(bare.serverCpuUs)} µs at ${fmt(rate)} req/s)`,
      goal: `≤ ${GOALS.whoamiOverBare}`,
      met: x <= GOALS.whoamiOverBare,
    });
  }
  if (r.pgbench && r.single.createInvoice) {
    list.push({
      target: 'create invoice throughput over pgbench TPC-B TPS',
      measured: `${r.pgbench.ratio.median.toFixed(2)} (${fmt(r.single.createInvoice.rps)} req/s / ${fmt(r.pgbench.tps)} tps; rounds ${ratios(r.pgbench.ratio)})`,
      goal: `≥ ${GOALS.createOverPgbench}`,
      met: r.pgbench.ratio.median >= GOALS.createOverPgbench,
    });
  }
  return list;
}

function operationsTable(s: Summary): string {
  const rows = s.operations.map((o) => [
    o.name,
    `${fmt(o.share, 1)} %`,
    fmt(o.rps),
    `${fmt(o.rpsRange.min)}–${fmt(o.rpsRange.max)}`,
    ms(o.p50),
    ms(o.p99),
    String(o.errors),
  ]);
  rows.push([
    '**all**',
    '100 %',
    `**${fmt(s.rps)}**`,
    spread(s.rpsRounds),
    ms(s.p50),
    ms(s.p99),
    String(s.errors),
  ]);
  return table(['operation', 'share', 'req/s', 'rounds', 'p50 ms', 'p99 ms', 'errors'], rows);
}

function cpuLine(s: Summary): string {
  return (
    `API CPU per request ${fmt(s.serverCpuUs)} µs (rounds ${spread(s.serverCpuUsRounds)})` +
    (s.renderCpuUs === null
      ? '; '
      : `, of which the render threads ${fmt(s.renderCpuUs)} µs (rounds ${spread(s.renderCpuUsRounds)}); `) +
    `PostgreSQL CPU per request ${us(s.postgresCpuUs)} µs` +
    (s.postgresCpuUsRounds.length > 0 ? ` (rounds ${spread(s.postgresCpuUsRounds)})` : '') +
    `; load generator ${fmt(s.generatorShare * 100)} % of a core (busiest round ${fmt(s.generatorShareMax * 100)} %).`
  );
}

function singleRow(name: string, s: Summary): string[] {
  return [
    name,
    fmt(s.rps),
    spread(s.rpsRounds),
    ms(s.p50),
    ms(s.p99),
    String(s.errors),
    `${fmt(s.serverCpuUs)} (${spread(s.serverCpuUsRounds)})`,
    s.postgresCpuUs === null ? '–' : `${fmt(s.postgresCpuUs)} (${spread(s.postgresCpuUsRounds)})`,
    `${fmt(s.generatorShareMax * 100)} %`,
  ];
}

function notes(r: Results): string[] {
  const out: string[] = [];
  const all: [string, Summary][] = [
    ...(r.mixed ? ([['mixed', r.mixed.current]] as [string, Summary][]) : []),
    ...(r.mixed?.baseline ? ([['mixed (baseline)', r.mixed.baseline]] as [string, Summary][]) : []),
    ...(r.instances ?? []).map((i): [string, Summary] => [
      `mixed on ${i.instances} instance(s)`,
      i.summary,
    ]),
    ...(Object.entries(r.single) as [string, Summary][]),
  ];
  for (const [name, s] of all) {
    for (const o of s.operations) {
      if (o.errors === 0) continue;
      out.push(
        `Errors in ${name}, ${o.name}: statuses ${JSON.stringify(o.statuses)}; e.g. ${o.samples.map((x) => `\`${x.replaceAll('`', "'")}\``).join('; ')}`,
      );
    }
    if (s.skipped > 0) {
      out.push(
        `${name}: ${fmt(s.skipped)} draws found no draft to issue or open invoice to pay (tried 20 tenants), and sent nothing.`,
      );
    }
    if (s.depth) {
      out.push(
        `${name}: next pages started on average ${fmt(s.depth.mean)} rows deep (deepest ${fmt(s.depth.max)}).`,
      );
    }
  }
  for (const [name, n] of Object.entries(r.renderBacklog)) {
    out.push(
      `The ${name} API had ${fmt(n)} issued documents left to render right after the mixed load (rendered after the issue is answered; a backlog would be work the figures leave out).`,
    );
  }
  for (const [name, n] of Object.entries(r.droppedLogLines)) {
    if (n)
      out.push(
        `The ${name} API dropped ${n} log lines (its standard output was not drained in time).`,
      );
  }
  return out;
}

export function report(r: Results): string {
  r.targets = targets(r);
  const s = r.settings;
  const seed = (x: SeedReport) =>
    `${fmt(x.total)} s (tenants and keys ${fmt(x.keys, 1)} s, customers ${fmt(x.customers, 1)} s, ` +
    `invoices ${fmt(x.invoices, 1)} s, ${fmt(x.lineRows)} invoice lines ${fmt(x.lines, 1)} s, ` +
    `vacuum and checkpoint ${fmt(x.vacuum, 1)} s)`;
  const out: string[] = [
    '# Benchmark results',
    '',
    `${r.startedAt}, ${fmt(r.seconds / 60, 1)} minutes. Code ${r.code.current}` +
      (r.code.baseline
        ? `, baseline ${r.code.baseline.ref} (${r.code.baseline.commit.slice(0, 7)})`
        : '') +
      `. PostgreSQL ${r.machine.postgres}, ${r.machine.database}; Node ${r.machine.node}; ${r.machine.cpus} CPUs. ` +
      `${s.connections} connections; ${s.rounds} rounds of ${s.mixedSeconds} s (mixed) or ${s.seconds} s (single paths) after a warm-up; ` +
      `sides compared are measured in turn, round by round.`,
    '',
    '## Targets',
    '',
    table(
      ['target', 'measured', 'goal', 'met'],
      r.targets.map((t) => [
        t.target,
        t.measured,
        t.goal,
        t.met === null ? '–' : t.met ? 'yes' : '**no**',
      ]),
    ),
    '',
  ];
  if (r.mixed) {
    out.push(
      '## Mixed load',
      '',
      `Every request a random tenant (weighted by size^0.6), one of its two keys, an operation by the mix and a random object. Partial payments: ${r.payments ? 'yes (POST /v1/invoices/{id}/payments)' : 'no (the API answers 404 route_not_found for /payments; /pay only)'}.`,
      '',
      operationsTable(r.mixed.current),
      '',
      cpuLine(r.mixed.current),
      '',
    );
    if (r.mixed.baseline && r.mixed.ratio) {
      const cpu = medianRatio(
        r.mixed.current.serverCpuUsRounds,
        r.mixed.baseline.serverCpuUsRounds,
      );
      out.push(
        `### Baseline ${r.code.baseline!.ref}, same load, rounds in turn with the above`,
        '',
        operationsTable(r.mixed.baseline),
        '',
        cpuLine(r.mixed.baseline),
        '',
        `Throughput current / baseline: **${r.mixed.ratio.median.toFixed(2)}** (median of the round pairs: ${ratios(r.mixed.ratio)}). ` +
          `API CPU per request current / baseline: ${cpu.median.toFixed(2)} (${ratios(cpu)}). ` +
          `Peak RSS current ${r.peakRssMb.current} MB, baseline ${r.peakRssMb.baseline} MB.`,
        '',
      );
    }
  }
  if (r.instances) {
    out.push(
      '## Instances on one database',
      '',
      `The mixed load, its ${r.settings.connections} connections spread evenly over 1, 2 and 4 instances of this API on the one database (one of them running the background jobs), measured in turn. API CPU is the sum over the instances.`,
      '',
      table(
        [
          'instances',
          'req/s',
          'rounds',
          'ratio to one',
          'p50 ms',
          'p99 ms',
          'errors',
          'API CPU µs/req',
          'PostgreSQL CPU µs/req',
        ],
        r.instances.map(({ instances, summary: x, ratio }) => [
          String(instances),
          fmt(x.rps),
          spread(x.rpsRounds),
          `${ratio.median.toFixed(2)} (${ratios(ratio)})`,
          ms(x.p50),
          ms(x.p99),
          String(x.errors),
          fmt(x.serverCpuUs),
          us(x.postgresCpuUs),
        ]),
      ),
      '',
    );
  }
  const singles = Object.entries(r.single) as [Operation, Summary][];
  if (singles.length > 0 || r.bare) {
    const paced = r.whoamiAtOneRate;
    const rows = [
      ...(r.bare ? [singleRow(OPERATION_NAMES.bare, r.bare)] : []),
      ...singles.map(([op, x]) => singleRow(OPERATION_NAMES[op], x)),
      ...(paced
        ? [
            singleRow(`${OPERATION_NAMES.bare}, paced at ${fmt(paced.rate)} req/s`, paced.bare),
            singleRow(`${OPERATION_NAMES.whoami}, paced at ${fmt(paced.rate)} req/s`, paced.whoami),
          ]
        : []),
    ];
    if (r.pgbench) {
      const p = r.pgbench;
      const pgCpu = p.rounds.every((x) => x.postgresCpu !== null)
        ? fmt(
            (1e6 * p.rounds.reduce((a, x) => a + x.postgresCpu!, 0)) /
              p.rounds.reduce((a, x) => a + x.transactions, 0),
          )
        : '–';
      rows.push([
        'pgbench TPC-B-like (transactions)',
        fmt(p.tps),
        spread(p.rounds.map((x) => x.tps)),
        `${ms(p.rounds.reduce((a, x) => a + x.latencyMs, 0) / p.rounds.length)} (mean)`,
        '',
        String(p.rounds.reduce((a, x) => a + x.failed, 0)),
        '',
        pgCpu,
        '',
      ]);
    }
    out.push(
      '## Single paths',
      '',
      'One operation at a time, random tenants and objects. CPU per request in µs over all rounds (each round’s range in brackets); the bare route’s CPU is its own process’s.',
      '',
      table(
        [
          'scenario',
          'req/s',
          'rounds',
          'p50 ms',
          'p99 ms',
          'errors',
          'API CPU µs/req',
          'PostgreSQL CPU µs/req',
          'generator CPU',
        ],
        rows,
      ),
      '',
    );
  }
  const d = r.dataset;
  out.push(
    '## Data set',
    '',
    `${d.tenants} tenants, ${fmt(d.customers)} customers (largest tenants ${d.largest.map((n) => fmt(n)).join(', ')}; smallest ${d.smallest}), ` +
      `${fmt(d.invoices)} invoices (20 % drafts, 50 % open, 30 % paid; 1–3 lines; a quarter with 19 % VAT), two API keys per tenant.`,
    '',
    `Seeding: ${seed(d.seeding.current)}` +
      (d.seeding.baseline ? `; baseline's database: ${seed(d.seeding.baseline)}` : '') +
      '.',
    '',
  );
  const n = notes(r);
  if (n.length > 0) out.push('## Notes', '', ...n.map((x) => `- ${x}`), '');
  return out.join('\n');
}
