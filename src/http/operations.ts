// Operational routes outside /v1 and without keys: liveness, readiness, Prometheus metrics;
// and the OpenAPI document under /v1.
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppDeps } from '../app.ts';
import { migrationsApplied } from '../db/migrate.ts';
import { ServiceUnavailableError } from './errors.ts';

const registry = new Registry();
collectDefaultMetrics({ register: registry });
const requests = new Counter({
  name: 'billing_http_requests_total',
  help: 'HTTP requests by route, method and status',
  labelNames: ['route', 'method', 'status'],
  registers: [registry],
});
const durations = new Histogram({
  name: 'billing_http_request_duration_seconds',
  help: 'HTTP request duration by route',
  labelNames: ['route', 'method'],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

// Requests reach prom-client in batches: at every scrape, and every BATCH requests. Its
// labelled children hash their label set again on every call, and that cost was a visible
// share of the cheapest requests; queued, a request costs two array pushes.
interface Series {
  counter: Counter.Internal;
  histogram: Histogram.Internal<string>;
}
const seriesByKey = new Map<string, Series>();
const queuedSeries: Series[] = [];
const queuedSeconds: number[] = [];
const BATCH = 256;

function series(method: string, route: string, statusCode: number): Series {
  const key = `${method} ${route} ${statusCode}`;
  let found = seriesByKey.get(key);
  if (found === undefined) {
    found = {
      counter: requests.labels({ route, method, status: String(statusCode) }),
      histogram: durations.labels({ route, method }),
    };
    seriesByKey.set(key, found);
  }
  return found;
}

/** Moves the queued requests into the metrics. */
function flushRequestMetrics(): void {
  for (let i = 0; i < queuedSeries.length; i++) {
    queuedSeries[i]!.counter.inc();
    queuedSeries[i]!.histogram.observe(queuedSeconds[i]!);
  }
  queuedSeries.length = 0;
  queuedSeconds.length = 0;
}

export function recordRequestMetrics(
  method: string,
  url: string | undefined,
  statusCode: number,
  elapsedMs: number,
): void {
  queuedSeries.push(series(method, url ?? 'unmatched', statusCode));
  queuedSeconds.push(elapsedMs / 1000);
  if (queuedSeries.length >= BATCH) flushRequestMetrics();
}

export function registerOperationsRoutes(app: FastifyInstance, deps: AppDeps): void {
  const hidden = { hide: true };
  app.get('/healthz', { config: { auth: false }, schema: hidden }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { auth: false }, schema: hidden }, async () => {
    let ready = false;
    try {
      ready = await migrationsApplied(deps.db);
    } catch {
      ready = false;
    }
    if (!ready) throw new ServiceUnavailableError('The database is unreachable or not migrated.');
    return { status: 'ready' };
  });
  app.get('/metrics', { config: { auth: false }, schema: hidden }, async (_request, reply) => {
    flushRequestMetrics();
    reply.type(registry.contentType);
    return registry.metrics();
  });
  app.get('/v1/openapi.json', { config: { auth: false }, schema: hidden }, async () =>
    app.swagger(),
  );
}
