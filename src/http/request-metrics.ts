// The two per-request metrics (requests by route, method and status; durations by route and
// method), counted in plain numbers and written out in Prometheus' text format at a scrape.
//
// prom-client, which serves every other metric, hashes a series' label set on every inc() and
// observe(): about 1 µs a request, a visible share of the cheapest ones. Here a request costs
// three map look-ups and a few additions; the text is made only when /metrics is asked for,
// in the format prom-client writes for its own counters and histograms.
export const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface Durations {
  /** Observations per bucket (not cumulative); the last slot is past every bound. */
  counts: number[];
  sum: number;
}

interface MethodSeries {
  durations: Durations;
  byStatus: Map<number, { count: number }>;
}

/** A label value as the text format wants it: backslash, double quote and newline escaped. */
function labelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

export class RequestMetrics {
  /** route → method → series. */
  private readonly series = new Map<string, Map<string, MethodSeries>>();

  constructor(
    private readonly names = {
      requests: 'billing_http_requests_total',
      durations: 'billing_http_request_duration_seconds',
    },
  ) {}

  record(method: string, route: string, statusCode: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.series.set(route, byMethod);
    }
    let series = byMethod.get(method);
    if (series === undefined) {
      series = {
        durations: {
          counts: new Array<number>(REQUEST_BUCKETS.length + 1).fill(0),
          sum: 0,
        },
        byStatus: new Map(),
      };
      byMethod.set(method, series);
    }
    const status = series.byStatus.get(statusCode);
    if (status === undefined) series.byStatus.set(statusCode, { count: 1 });
    else status.count++;
    const durations = series.durations;
    let bucket = 0;
    while (bucket < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[bucket]!) bucket++;
    durations.counts[bucket]!++;
    durations.sum += seconds;
  }

  /** Both metrics in the Prometheus text format (version 0.0.4), each line ending in \n. */
  render(): string {
    const { requests, durations } = this.names;
    const counter = [
      `# HELP ${requests} HTTP requests by route, method and status`,
      `# TYPE ${requests} counter`,
    ];
    const histogram = [
      `# HELP ${durations} HTTP request duration by route`,
      `# TYPE ${durations} histogram`,
    ];
    for (const [route, byMethod] of this.series) {
      for (const [method, series] of byMethod) {
        const labels = `route="${labelValue(route)}",method="${labelValue(method)}"`;
        for (const [status, { count }] of series.byStatus) {
          counter.push(`${requests}{${labels},status="${status}"} ${count}`);
        }
        const { counts, sum } = series.durations;
        let cumulative = 0;
        for (const [i, bound] of REQUEST_BUCKETS.entries()) {
          cumulative += counts[i]!;
          histogram.push(`${durations}_bucket{le="${bound}",${labels}} ${cumulative}`);
        }
        const count = cumulative + counts[REQUEST_BUCKETS.length]!;
        histogram.push(`${durations}_bucket{le="+Inf",${labels}} ${count}`);
        histogram.push(`${durations}_sum{${labels}} ${sum}`);
        histogram.push(`${durations}_count{${labels}} ${count}`);
      }
    }
    return `${counter.join('\n')}\n\n${histogram.join('\n')}\n`;
  }
}
