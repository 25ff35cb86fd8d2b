// HTTP for tenant settings: schema, scope, call the service, shape the reply.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RoutePlugin } from '../http/plugin.ts';
import { sendWrite } from '../http/idempotency.ts';
import { errorResponses, IdempotencyHeaders } from '../http/schemas.ts';
import { Settings, SettingsUpdate } from './schemas.ts';

const tags = ['Settings'];

export const settingsRoutes: RoutePlugin = async (server, { settings }) => {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/settings',
    {
      config: { scope: 'settings:read' },
      schema: {
        tags,
        summary: "The tenant's settings in this environment",
        response: { 200: Settings, ...errorResponses() },
      },
    },
    async (request) => settings.get(request.actor),
  );

  app.patch(
    '/v1/settings',
    {
      config: { scope: 'settings:write' },
      schema: {
        tags,
        summary: "Change the tenant's settings in this environment",
        description:
          'Changes only the fields it names; `null` clears an optional field; `address` and `paymentDetails` are replaced whole. The settings of the other environment do not change (the operator CLI changes both). Issued documents keep the seller as it was when they were issued. Writes the event settings.updated.',
        headers: IdempotencyHeaders,
        body: SettingsUpdate,
        response: { 200: Settings, ...errorResponses(409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) => settings.update(write, request.body)),
  );
};
