// Operational routes outside /v1 and without keys: liveness, readiness, Prometheus metrics;
// and the OpenAPI document under /v1.
import type { FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { AppDeps } from '../app.ts';
import { migrationsApplied } from '../db/migrate.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { registerRequestMetrics } from './observability.ts';

export function registerOperationsRoutes(app: FastifyInstance, deps: AppDeps): void {
  // One registry per app: tests start several apps in one process.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerRequestMetrics(app, registry);
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
