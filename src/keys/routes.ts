// HTTP door to keys: whoami and /v1/api-keys. The CLI is the other door to the same service.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.ts';
import { sendWrite } from '../http/idempotency.ts';
import { buildPage, listBinding, readPageRequest } from '../paging.ts';
import {
  Environment,
  errorResponses,
  IdempotencyHeaders,
  IdParams,
  Nullable,
  NullableTimestamp,
  Page,
  PageQuery,
  Timestamp,
} from '../http/schemas.ts';
import { SCOPES } from './scopes.ts';
import { apiKeyFromRow, createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from './service.ts';

export const Identity = Type.Object(
  {
    tenantId: Type.String(),
    environment: Environment,
    scopes: Type.Array(Type.String()),
  },
  { title: 'Identity' },
);

const ScopeName = Type.Union(
  SCOPES.map((s) => Type.Literal(s)),
  { description: 'A scope; a key can grant only scopes it holds itself.' },
);

const ApiKeyFields = {
  id: Type.String({ description: 'key_…' }),
  object: Type.Literal('api_key'),
  name: Nullable(Type.String()),
  tenantId: Type.String(),
  environment: Environment,
  scopes: Type.Array(Type.String()),
  redacted: Type.String({ description: 'The secret with all but its last 4 characters hidden.' }),
  rotatedFrom: Nullable(Type.String({ description: 'The key this one replaced by rotation.' })),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'To the minute.' })),
  expiresAt: NullableTimestamp,
  revokedAt: NullableTimestamp,
};
const ApiKey = Type.Object(ApiKeyFields, { title: 'ApiKey' });
const IssuedApiKey = Type.Object(
  {
    ...ApiKeyFields,
    secret: Type.String({ description: 'sk_test_… / sk_live_…: shown this once only.' }),
  },
  { title: 'IssuedApiKey' },
);

const tags = ['API keys'];

export function registerKeyRoutes(server: FastifyInstance, { db, cursors }: AppDeps): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
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

  app.get(
    '/v1/api-keys',
    {
      config: { scope: 'keys:read' },
      schema: {
        tags,
        summary: 'List the keys of this tenant and environment (never their secrets)',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Page(ApiKey), ...errorResponses() },
      },
    },
    async (request) => {
      const binding = listBinding(request.actor, 'api_keys');
      const page = readPageRequest(cursors, request.query, binding);
      const rows = await listApiKeys(db, request.actor, page);
      return buildPage(cursors, rows, page, binding, apiKeyFromRow);
    },
  );

  app.post(
    '/v1/api-keys',
    {
      config: { scope: 'keys:write' },
      schema: {
        tags,
        summary: 'Create a key in this tenant and environment',
        description:
          'The secret is in this response only. The new key can hold only scopes the calling key holds (403 scope_insufficient names the first it lacks).',
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length }),
          },
          { additionalProperties: false },
        ),
        response: { 201: IssuedApiKey, ...errorResponses(409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 201, (write) =>
        createApiKey(db, write, { scopes: request.body.scopes, name: request.body.name ?? null }),
      ),
  );

  app.post(
    '/v1/api-keys/:id/rotate',
    {
      config: { scope: 'keys:write' },
      schema: {
        tags,
        summary: 'Rotate a key: a new key with the same scopes',
        description:
          'The old key keeps working until revoked, or for `expireOldInSeconds` when given. The new secret is in this response only.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            expireOldInSeconds: Type.Optional(
              Type.Integer({ minimum: 0, maximum: 90 * 86400, description: 'At most 90 days.' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: IssuedApiKey, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 201, (write) =>
        rotateApiKey(db, write, request.params.id, {
          expireOldInSeconds: request.body.expireOldInSeconds ?? null,
        }),
      ),
  );

  app.post(
    '/v1/api-keys/:id/revoke',
    {
      config: { scope: 'keys:write' },
      schema: {
        tags,
        summary: 'Revoke a key (a key may revoke itself); refused everywhere within 2 s',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: ApiKey, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) => revokeApiKey(db, write, request.params.id)),
  );
}
