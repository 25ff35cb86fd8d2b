// The load generator, run as its own process so it does not share a CPU budget with the
// server's event loop: autocannon with a fixed number of connections against one target.
// Input: one JSON argument; output: one JSON line with the figures.
import autocannon from 'autocannon';

interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  /** A fixed number of requests instead of `seconds` of them (bench/instructions.ts). */
  amount?: number;
  /** A fresh Idempotency-Key on every request. */
  freshIdempotencyKey?: boolean;
  /** Paths taken in turn, one per request (e.g. a different draft to issue each time):
   * `{n}` in the template becomes 1, 2, … zero-padded to 9 digits, up to pathCount. */
  pathTemplate?: string;
  pathCount?: number;
  /** The first n (default 1): runs one after another go on where the last stopped. */
  pathStart?: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
let n = 0;
const varies = spec.freshIdempotencyKey === true || spec.pathTemplate !== undefined;
const cpuBefore = process.cpuUsage();
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  ...(spec.amount === undefined ? { duration: spec.seconds } : { amount: spec.amount }),
  method: spec.method ?? 'GET',
  headers: spec.headers,
  body: spec.body,
  // A request rebuilt for every send costs the load generator several times what a fixed one
  // does (autocannon serialises a fixed request once): only the specs that vary it get one, or
  // the generator, not the server, would set the ceiling of the cheap read paths.
  requests: varies
    ? [
        {
          setupRequest: (request) => {
            n++;
            const next = { ...request };
            if (spec.freshIdempotencyKey) {
              next.headers = {
                ...(next.headers ?? {}),
                'idempotency-key': `bench-${process.pid}-${n}`,
              };
            }
            if (spec.pathTemplate) {
              const i = ((n - 2 + (spec.pathStart ?? 1)) % (spec.pathCount ?? 1)) + 1;
              next.path = spec.pathTemplate.replace('{n}', String(i).padStart(9, '0'));
            }
            return next;
          },
        },
      ]
    : undefined,
});
// The generator's own CPU over the run, as a share of one core: near 1, the generator (one
// thread) and not the server set the rate.
const cpu = process.cpuUsage(cpuBefore);
console.log(
  JSON.stringify({
    cpu: (cpu.user + cpu.system) / 1e6 / spec.seconds,
    rps: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    non2xx: result.non2xx,
  }),
);
