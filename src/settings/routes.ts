// HTTP for tenant settings: schema, scope, call the service, shape the reply.
import type { RoutePlugin } from '../http/plugin.ts';
import { apiRoutes } from '../http/routes.ts';
import { errorResponses } from '../http/schemas.ts';
import { Settings, SettingsUpdate } from './schemas.ts';

const tags = ['Settings'];

export const settingsRoutes: RoutePlugin = async (server, { settings, cursors }) => {
  const routes = apiRoutes(server, cursors, tags);
  routes.read(
    '/v1/settings',
    'settings:read',
    {
      summary: "The tenant's settings in this environment",
      response: { 200: Settings, ...errorResponses() },
    },
    (request) => settings.get(request.actor),
  );

  routes.write(
    'PATCH /v1/settings',
    'settings:write',
    {
      summary: "Change the tenant's settings in this environment",
      description:
        'Changes only the fields it names; `null` clears an optional field; `address` and `paymentDetails` are replaced whole. The settings of the other environment do not change (the operator CLI changes both). Issued documents keep the seller as it was when they were issued. Writes the event settings.updated.',
      body: SettingsUpdate,
      response: { 200: Settings, ...errorResponses(409, 413, 415, 422) },
    },
    (write, request) => settings.update(write, request.body),
  );
};
