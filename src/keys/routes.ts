// HTTP door to keys: whoami and /v1/api-keys. The CLI is the other door to the same service.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RoutePlugin } from '../http/plugin.ts';
import { apiRoutes } from '../http/routes.ts';
import { errorResponses, IdParams, ListQuery, NoBody, Page } from '../http/schemas.ts';
import { ApiKey, ApiKeyCreate, ApiKeyRotate, Identity, IssuedApiKey } from './schemas.ts';
import { apiKeyFromRow } from './service.ts';

const tags = ['API keys'];

export const keyRoutes: RoutePlugin = async (server, { apiKeys, cursors }) => {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  const routes = apiRoutes(server, cursors, tags);
  app.get(
    '/v1/auth/whoami',
    {
      config: { scope: null },
      schema: {
        tags: ['Authentication'],
        operationId: 'getIdentity',
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

  routes.list(
    '/v1/api-keys',
    'keys:read',
    {
      summary: 'List the keys of this tenant and environment (never their secrets)',
      querystring: ListQuery,
      response: { 200: Page(ApiKey), ...errorResponses() },
    },
    {
      list: 'api_keys',
      rows: (actor, _query, page) => apiKeys.list(actor, page),
      item: apiKeyFromRow,
    },
  );

  routes.write(
    'POST /v1/api-keys',
    'keys:write',
    {
      summary: 'Create a key in this tenant and environment',
      description:
        'The secret is in this response only. The new key can hold only scopes the calling key holds (403 scope_insufficient names the first it lacks).',
      body: ApiKeyCreate,
      response: { 201: IssuedApiKey, ...errorResponses(409, 413, 415, 422) },
    },
    (write, request) =>
      apiKeys.create(write, { scopes: request.body.scopes, name: request.body.name ?? null }),
  );

  routes.write(
    'POST /v1/api-keys/:id/rotate',
    'keys:write',
    {
      summary: 'Rotate a key: a new key with the same scopes',
      description:
        'The old key keeps working until revoked, or for `expireOldInSeconds` when given. The new secret is in this response only.',
      params: IdParams,
      body: ApiKeyRotate,
      response: { 201: IssuedApiKey, ...errorResponses(404, 409, 413, 415, 422) },
    },
    (write, request) =>
      apiKeys.rotate(write, request.params.id, {
        expireOldInSeconds: request.body.expireOldInSeconds ?? null,
      }),
  );

  routes.write(
    'POST /v1/api-keys/:id/revoke',
    'keys:write',
    {
      summary: 'Revoke a key (a key may revoke itself); refused everywhere within 2 s',
      params: IdParams,
      body: NoBody,
      response: { 200: ApiKey, ...errorResponses(404, 409, 413, 415, 422) },
    },
    (write, request) => apiKeys.revoke(write, request.params.id),
  );
};
