// From the rounds of one scenario on one API to its figures: throughput, latency percentiles
// over every request of every round (the rounds' histograms merged), errors, CPU per request,
// and each figure's spread from round to round.
import * as hdr from 'hdr-histogram-js';
import type { RoundFigures } from './generator.ts';
import { OPERATION_NAMES, OPERATIONS, type Operation } from './traffic.ts';

/** One measured round: the generator's figures and the CPU seconds the servers used meanwhile. */
export interface Round {
  figures: RoundFigures;
  /** The API's (or the bare route's) CPU seconds over the round. */
  serverCpu: number;
  /** Of serverCpu, the render threads' (PDFs and e-invoices at issue); null when not reported. */
  renderCpu: number | null;
  /** PostgreSQL's CPU seconds over the round; null when the server is not on this machine. */
  postgresCpu: number | null;
}

export interface Range {
  min: number;
  max: number;
}

export interface OperationSummary {
  op: Operation;
  name: string;
  requests: number;
  /** Share of the scenario's requests, per cent. */
  share: number;
  rps: number;
  rpsRange: Range;
  p50: number;
  p99: number;
  errors: number;
  statuses: Record<string, number>;
  samples: string[];
}

export interface Summary {
  rounds: number;
  requests: number;
  seconds: number;
  rps: number;
  rpsRounds: number[];
  p50: number;
  p99: number;
  errors: number;
  /** Microseconds of server CPU per request, over all rounds, and each round's. */
  serverCpuUs: number;
  serverCpuUsRounds: number[];
  /** Of serverCpuUs, the render threads'; null when the API does not report it. */
  renderCpuUs: number | null;
  renderCpuUsRounds: number[];
  postgresCpuUs: number | null;
  postgresCpuUsRounds: number[];
  /** The generator's CPU as a share of one core: over all rounds, and its busiest round. */
  generatorShare: number;
  generatorShareMax: number;
  skipped: number;
  depth: { mean: number; max: number } | null;
  operations: OperationSummary[];
}

const range = (values: number[]): Range => ({ min: Math.min(...values), max: Math.max(...values) });
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** A histogram of microseconds, as every latency of the benchmark is recorded. */
export function newHistogram(): hdr.Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3 });
}

/** p50 and p99, in milliseconds, of histograms of microseconds (hdr, compressed base64). */
export function percentiles(encoded: string[]): { p50: number; p99: number } {
  const merged = newHistogram();
  for (const text of encoded) {
    const h = hdr.decodeFromCompressedBase64(text);
    merged.add(h);
    h.destroy();
  }
  const result = {
    p50: merged.getValueAtPercentile(50) / 1000,
    p99: merged.getValueAtPercentile(99) / 1000,
  };
  merged.destroy();
  return result;
}

export function summarise(rounds: Round[]): Summary {
  const seconds = sum(rounds.map((r) => r.figures.seconds));
  const requestsOf = (r: Round) =>
    sum(Object.values(r.figures.operations).map((o) => o?.requests ?? 0));
  const requests = sum(rounds.map(requestsOf));
  const operations: OperationSummary[] = [];
  for (const op of OPERATIONS) {
    const per = rounds.map((r) => r.figures.operations[op]);
    if (per.every((o) => o === undefined)) continue;
    const opRequests = sum(per.map((o) => o?.requests ?? 0));
    const statuses: Record<string, number> = {};
    for (const o of per) {
      for (const [status, n] of Object.entries(o?.statuses ?? {})) {
        statuses[status] = (statuses[status] ?? 0) + n;
      }
    }
    operations.push({
      op,
      name: OPERATION_NAMES[op],
      requests: opRequests,
      share: (100 * opRequests) / requests,
      rps: opRequests / seconds,
      rpsRange: range(rounds.map((r, i) => (per[i]?.requests ?? 0) / r.figures.seconds)),
      ...percentiles(per.flatMap((o) => (o ? [o.histogram] : []))),
      errors: sum(per.map((o) => o?.errors ?? 0)),
      statuses,
      samples: per.flatMap((o) => o?.samples ?? []).slice(0, 3),
    });
  }
  const all = percentiles(
    rounds.flatMap((r) => Object.values(r.figures.operations).map((o) => o!.histogram)),
  );
  const perRequestUs = (cpu: number, r: Round) => (1e6 * cpu) / Math.max(1, requestsOf(r));
  const postgres = rounds.every((r) => r.postgresCpu !== null);
  const render = rounds.every((r) => r.renderCpu !== null);
  const depthCount = sum(rounds.map((r) => r.figures.depth.count));
  return {
    rounds: rounds.length,
    requests,
    seconds,
    rps: requests / seconds,
    rpsRounds: rounds.map((r) => requestsOf(r) / r.figures.seconds),
    ...all,
    errors: sum(operations.map((o) => o.errors)),
    serverCpuUs: (1e6 * sum(rounds.map((r) => r.serverCpu))) / requests,
    serverCpuUsRounds: rounds.map((r) => perRequestUs(r.serverCpu, r)),
    renderCpuUs: render ? (1e6 * sum(rounds.map((r) => r.renderCpu!))) / requests : null,
    renderCpuUsRounds: render ? rounds.map((r) => perRequestUs(r.renderCpu!, r)) : [],
    postgresCpuUs: postgres ? (1e6 * sum(rounds.map((r) => r.postgresCpu!))) / requests : null,
    postgresCpuUsRounds: postgres ? rounds.map((r) => perRequestUs(r.postgresCpu!, r)) : [],
    generatorShare: sum(rounds.map((r) => r.figures.cpuSeconds)) / seconds,
    generatorShareMax: Math.max(...rounds.map((r) => r.figures.cpuSeconds / r.figures.seconds)),
    skipped: sum(rounds.map((r) => r.figures.skipped)),
    depth:
      depthCount === 0
        ? null
        : {
            mean: sum(rounds.map((r) => r.figures.depth.sum)) / depthCount,
            max: Math.max(...rounds.map((r) => r.figures.depth.max)),
          },
    operations,
  };
}

/** The median of round-by-round ratios a[i] / b[i] (rounds that ran side by side). */
export function medianRatio(a: number[], b: number[]): { median: number; rounds: number[] } {
  const rounds = a.map((x, i) => x / b[i]!);
  const sorted = [...rounds].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, rounds };
}

export function spread(values: number[], digits = 0): string {
  const r = range(values);
  return `${fmt(r.min, digits)}–${fmt(r.max, digits)}`;
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function table(header: string[], rows: string[][]): string {
  return [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}
