// Operational routes outside /v1 and without keys: liveness, readiness, Prometheus metrics;
// and the OpenAPI document under /v1.
import type { FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { AppDeps } from '../app.ts';
import { migrationsApplied } from '../db/migrate.ts';
import { ServiceUnavailableError } from './errors.ts';
import { RequestMetrics } from './request-metrics.ts';

const registry = new Registry();
collectDefaultMetrics({ register: registry });
const requestMetrics = new RequestMetrics();

export function recordRequestMetrics(
  method: string,
  route: string | undefined,
  statusCode: number,
  elapsedMs: number,
): void {
  requestMetrics.record(method, route ?? 'unmatched', statusCode, elapsedMs / 1000);
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
    return `${await registry.metrics()}\n${requestMetrics.render()}`;
  });
  app.get('/v1/openapi.json', { config: { auth: false }, schema: hidden }, async () =>
    app.swagger(),
  );
}
