// HTTP for events: schema, scope, call the service, shape the reply.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RoutePlugin } from '../http/plugin.ts';
import { buildPage, listBinding, readPageRequest } from '../paging.ts';
import { errorResponses, IdParams, Page } from '../http/schemas.ts';
import { Event, EventListQuery } from './schemas.ts';
import { eventFromRow } from './service.ts';
import { EVENT_READ_SCOPES } from './types.ts';

const tags = ['Events'];

// Events hold the snapshots written at the time of each change, sent as they were stored: the
// document types them (a union of the resources), the serializer does not reshape them.
const asStored = () => (data: unknown) => JSON.stringify(data);

const SCOPE_RULE =
  'An event is readable with the read scope of the object it describes: `customer.*` needs `customers:read`; `invoice.*`, `credit_note.*` and `tax_rate.*` need `invoices:read`; `api_key.*` needs `keys:read`.';

export const eventRoutes: RoutePlugin = async (server, { events, cursors }) => {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/events',
    {
      // The scope depends on the types listed: checked by the service.
      config: { scope: null, expensive: 'large-page' },
      serializerCompiler: asStored,
      schema: {
        tags,
        summary: 'List events, newest first',
        'x-required-scope': EVENT_READ_SCOPES,
        description: `${SCOPE_RULE} With \`type\`, the key needs that type's scope (else 403 \`scope_insufficient\`). Without it, the list holds only the types the key can read; a key that can read none gets 403 \`scope_insufficient\`.`,
        querystring: EventListQuery,
        response: { 200: Page(Event), ...errorResponses() },
      },
    },
    async (request) => {
      const query = request.query;
      const binding = listBinding(request.actor, 'events', { type: query.type });
      const page = readPageRequest(cursors, query, binding);
      const rows = await events.list(request.actor, query.type, page);
      return buildPage(cursors, rows, page, binding, eventFromRow);
    },
  );

  app.get(
    '/v1/events/:id',
    {
      config: { scope: null },
      serializerCompiler: asStored,
      schema: {
        tags,
        summary: 'Retrieve an event',
        'x-required-scope': EVENT_READ_SCOPES,
        description: `${SCOPE_RULE} An event of this tenant and environment whose scope the key lacks is 403 \`scope_insufficient\` (with \`requiredScope\`); an event of another tenant or environment is 404.`,
        params: IdParams,
        response: { 200: Event, ...errorResponses(404) },
      },
    },
    async (request) => events.get(request.actor, request.params.id),
  );
};
