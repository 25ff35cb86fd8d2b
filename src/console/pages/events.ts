// Events (docs/console.md, "Events"): the environment's events, newest first, 25 a page,
// filtered by type, each with its object, time and actor; and one event's JSON. Read through the
// events service as GET /v1/events reads them: a role sees the types its scopes read.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Composition } from '../../composition.ts';
import { ParameterInvalidError } from '../../errors.ts';
import { EVENT_TYPES, readableTypes, type EventType } from '../../events/types.ts';
import { listBinding, readPageRequest } from '../../paging.ts';
import type { EventActor } from '../../tenancy.ts';
import { consoleRoute, sessionOf, showPage, textOf } from '../page.ts';
import type { Translate } from '../views.ts';

const ListQuery = Type.Object({
  type: Type.Optional(Type.String({ maxLength: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
});
const EventParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const PAGE_SIZE = 25;

/** Where the console shows an event's object, when it has a page for it. */
function objectHref(id: string): string | null {
  if (id.startsWith('inv_')) return `/console/invoices/${id}`;
  if (id.startsWith('cus_')) return `/console/customers/${id}`;
  return null;
}

function actorText(actor: EventActor | null, t: Translate): string {
  if (actor === null) return '—';
  if (actor.type === 'user') return actor.email;
  if (actor.type === 'api_key') return t('console.events.apiKey', { id: actor.id });
  return t('console.events.system');
}

export async function eventPages(app: FastifyInstance, deps: Composition) {
  const { events, cursors } = deps;

  app.get(
    '/events',
    consoleRoute('invoices:read', { querystring: ListQuery }),
    async (request, reply) => {
      const { type: typed, cursor: given } = request.query as Static<typeof ListQuery>;
      const session = sessionOf(request);
      const t = textOf(request);
      const { lang, timeZone } = request.console;
      const type = typed?.trim() || undefined;
      if (type !== undefined && !(EVENT_TYPES as readonly string[]).includes(type)) {
        throw new ParameterInvalidError('type', `Unknown event type '${type}'.`);
      }
      const binding = listBinding(session.actor, 'console events', { type });
      const page = readPageRequest(
        cursors,
        { limit: PAGE_SIZE, ...(given ? { cursor: given } : {}) },
        binding,
      );
      const found = await events.list(session.actor, type as EventType | undefined, page);
      const rows = found.slice(0, PAGE_SIZE);
      const last = rows[rows.length - 1];
      let next: string | null = null;
      if (found.length > PAGE_SIZE && last) {
        const cursor = cursors.sign({ t: last.created_at.toISOString(), i: last.id, b: binding });
        next = `/console/events?${new URLSearchParams({ ...(type ? { type } : {}), cursor })}`;
      }
      const time = new Intl.DateTimeFormat(lang, {
        timeZone,
        dateStyle: 'medium',
        timeStyle: 'medium',
      });
      return showPage(request, reply, 'events', t('console.events.title'), {
        type: type ?? '',
        types: readableTypes(session.actor.scopes) ?? EVENT_TYPES,
        events: rows.map((row) => ({
          id: row.id,
          type: row.type,
          object: row.object_id,
          objectHref: objectHref(row.object_id),
          at: row.created_at.toISOString(),
          time: time.format(row.created_at),
          actor: actorText(row.actor, t),
        })),
        next,
      });
    },
  );

  app.get(
    '/events/:id',
    consoleRoute('invoices:read', { params: EventParams }),
    async (request, reply) => {
      const { id } = request.params as Static<typeof EventParams>;
      const t = textOf(request);
      const event = await events.get(sessionOf(request).actor, id);
      return showPage(request, reply, 'event', event.type, {
        id: event.id,
        actor: actorText(event.actor, t),
        json: JSON.stringify(event, null, 2),
      });
    },
  );
}
