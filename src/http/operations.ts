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

// The labelled children, looked up once per route, method and status: prom-client hashes the
// label set on every call otherwise.
const requestCounters = new Map<string, Counter.Internal>();
const durationHistograms = new Map<string, Histogram.Internal<string>>();

export function recordRequestMetrics(
  method: string,
  url: string | undefined,
  statusCode: number,
  elapsedMs: number,
): void {
  const route = url ?? 'unmatched';
  const routeKey = `${method} ${route}`;
  const countKey = `${routeKey} ${statusCode}`;
  let counter = requestCounters.get(countKey);
  if (counter === undefined) {
    counter = requests.labels({ route, method, status: String(statusCode) });
    requestCounters.set(countKey, counter);
  }
  counter.inc();
  let histogram = durationHistograms.get(routeKey);
  if (histogram === undefined) {
    histogram = durations.labels({ route, method });
    durationHistograms.set(routeKey, histogram);
  }
  histogram.observe(elapsedMs / 1000);
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
    reply.type(registry.contentType);
    return registry.metrics();
  });
  app.get('/v1/openapi.json', { config: { auth: false }, schema: hidden }, async () =>
    app.swagger(),
  );
}
