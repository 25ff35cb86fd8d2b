// Operational routes outside /v1 and without keys: liveness, readiness, Prometheus metrics
// (protected otherwise: ./metrics.ts); and the OpenAPI document under /v1.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { migrationsApplied } from '../db/migrate.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { METRICS_DESCRIPTION } from './metrics.ts';
import type { RoutePlugin } from './plugin.ts';
import { withListeningServer } from './openapi-info.ts';
import { openRouteResponses } from './schemas.ts';

type Json = { servers?: { url: string }[] } & object;

const tags = ['Operations'];
const open = { auth: false };

const Health = Type.Object({ status: Type.Literal('ok') }, { title: 'Health' });
const Readiness = Type.Object({ status: Type.Literal('ready') }, { title: 'Readiness' });

/** The operational routes; `readMetrics` answers /metrics (./metrics.ts, registered at the root). */
export function operationsRoutes(
  readMetrics: (request: FastifyRequest) => Promise<string>,
): RoutePlugin {
  return async (app, deps) => {
    app.get(
      '/healthz',
      {
        config: open,
        schema: {
          tags,
          operationId: 'getHealth',
          summary: 'Liveness: the process answers',
          response: { 200: Health, ...openRouteResponses() },
        },
      },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/readyz',
      {
        config: open,
        schema: {
          tags,
          operationId: 'getReadiness',
          summary: 'Readiness: the database is reachable and migrated',
          description: 'A load balancer sends traffic only while this answers 200.',
          response: {
            200: Readiness,
            ...openRouteResponses(),
          },
        },
      },
      async () => {
        let ready = false;
        try {
          ready = await migrationsApplied(deps.db);
        } catch {
          ready = false;
        }
        if (!ready)
          throw new ServiceUnavailableError('The database is unreachable or not migrated.');
        return { status: 'ready' as const };
      },
    );
    app.get(
      '/metrics',
      {
        config: open,
        schema: {
          tags,
          operationId: 'getMetrics',
          summary: 'Prometheus metrics',
          description: METRICS_DESCRIPTION,
          response: {
            200: {
              description: 'The metrics.',
              content: { 'text/plain': { schema: { type: 'string' } } },
            },
            ...openRouteResponses(401, 404),
          },
        },
      },
      async (request, reply) => {
        const text = await readMetrics(request);
        return reply.type(app.metricsRegistry.contentType).send(text);
      },
    );
    app.get(
      '/v1/openapi.json',
      {
        config: open,
        schema: {
          tags,
          operationId: 'getOpenApiDocument',
          summary: 'This OpenAPI 3.1 document',
          description: 'Generated from the same schemas that validate requests.',
          response: {
            200: {
              description: 'The OpenAPI document.',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
            ...openRouteResponses(),
          },
        },
      },
      async (_request, reply) =>
        reply
          .type('application/json; charset=utf-8')
          .send(
            JSON.stringify(
              withListeningServer(app.swagger() as Json, deps.config, app.server.address()),
            ),
          ),
    );
  };
}
