// What every request leaves behind: one JSON log line (pino, through Fastify's log
// controller) and two Prometheus metrics (prom-client). The line names the request id, tenant,
// key id, route, status and duration; never a key, a secret or a body.
import {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Fastify's own request lines replaced by one line per request, when it is complete. */
export class AccessLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'requestId', disableRequestLogging: true });
  }

  override requestCompleted(_error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const actor = request.actor as FastifyRequest['actor'] | null;
    reply.log.info(
      {
        tenantId: actor?.tenantId,
        keyId: actor?.keyId ?? undefined,
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  }
}

export function registerRequestMetrics(app: FastifyInstance, registry: Registry): void {
  const requests = new Counter({
    name: 'billing_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'billing_http_request_duration_seconds',
    help: 'HTTP request duration by route and method',
    labelNames: ['route', 'method'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ route, method: request.method, status: reply.statusCode });
    durations.observe({ route, method: request.method }, reply.elapsedTime / 1000);
    done();
  });
}
