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
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.seconds,
  method: spec.method ?? 'GET',
  headers: spec.headers,
  body: spec.body,
  requests: [
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
  ],
});
console.log(
  JSON.stringify({
    rps: result.requests.average,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    non2xx: result.non2xx,
  }),
);
