// Operational routes outside /v1 and without keys: liveness, readiness, Prometheus metrics;
// and the OpenAPI document under /v1.
import type { FastifyInstance } from 'fastify';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppDeps } from '../app.ts';
import { migrationsApplied } from '../db/migrate.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { registerRequestMetrics } from './observability.ts';

export function registerOperationsRoutes(app: FastifyInstance, deps: AppDeps): void {
  // One registry per app: tests start several apps in one process.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerRequestMetrics(app, registry);
  // The render pool's threads are part of the process's CPU time; this says how much of it.
  new Counter({
    name: 'billing_render_cpu_seconds_total',
    help: 'CPU time the render threads spent rendering PDFs and e-invoices.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(deps.renderer.cpuSeconds);
    },
  });
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
