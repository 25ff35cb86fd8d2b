// HTTP door to tenants' keys: whoami (and /v1/api-keys).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Environment, errorResponses } from '../http/schemas.ts';

export const Identity = Type.Object(
  {
    tenantId: Type.String(),
    environment: Environment,
    scopes: Type.Array(Type.String()),
  },
  { title: 'Identity' },
);

export function registerKeyRoutes(app: FastifyInstance): void {
  app.get(
    '/v1/auth/whoami',
    {
      config: { scope: null },
      schema: {
        tags: ['Authentication'],
        summary: 'The tenant, environment and scopes of the presented key',
        response: { 200: Identity, ...errorResponses() },
      },
    },
    async (request) => ({
      tenantId: request.actor.tenantId,
      environment: request.actor.environment,
      scopes: [...request.actor.scopes],
    }),
  );
}
