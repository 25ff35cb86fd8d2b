// Webhooks (docs/console.md, "Webhooks"): the endpoints (admins enable and disable them, as
// PATCH /v1/webhook-endpoints does), the deliveries of all of them, newest first, 25 a page,
// and a delivery's page with its payload and attempts; finance and admins retry a delivery
// through the webhooks service's retry (POST …/deliveries/{id}/retry in the API).
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Composition } from '../../composition.ts';
import { ScopeInsufficientError } from '../../errors.ts';
import { buildPage, listBinding, readPageRequest } from '../../paging.ts';
import { consoleRoute, consoleWrite, readerOf, sessionOf, showPage } from '../page.ts';
import { permits } from '../roles.ts';
import { localDateTime } from '../webhooks.ts';

const ListQuery = Type.Object({ cursor: Type.Optional(Type.String({ maxLength: 500 })) });
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const ActionForm = Type.Object({
  _csrf: Type.Optional(Type.String()),
  idempotencyKey: Type.String({ minLength: 1, maxLength: 100 }),
});
const PAGE_SIZE = 25;
/** Endpoints shown: a tenant has a handful (each event is sent to every one of them). */
const ENDPOINTS_SHOWN = 100;

export async function webhookPages(app: FastifyInstance, deps: Composition) {
  const { webhookEndpoints, consoleDeliveries, cursors } = deps;

  app.get(
    '/webhooks',
    consoleRoute('webhooks:read', { querystring: ListQuery }),
    async (request, reply) => {
      const { session, scope, lang, timeZone, t } = readerOf(request);
      const binding = listBinding(scope, 'console deliveries');
      const query = { limit: PAGE_SIZE, ...(request.query as Static<typeof ListQuery>) };
      const page = readPageRequest(cursors, query, binding);
      const [endpoints, found] = await Promise.all([
        webhookEndpoints.list(scope, { limit: ENDPOINTS_SHOWN, after: null }),
        consoleDeliveries.recent(scope, page.after, PAGE_SIZE + 1),
      ]);
      const { data: rows, nextCursor: next } = buildPage(cursors, found, page, binding, (d) => d);
      return showPage(request, reply, 'webhooks', t('console.webhooks.title'), {
        endpoints: endpoints.slice(0, ENDPOINTS_SHOWN).map((e) => ({
          id: e.id,
          url: e.url,
          events: e.enabled_events.includes('*')
            ? t('console.webhooks.allEvents')
            : e.enabled_events.join(', '),
          disabled: e.disabled,
          state: e.disabled
            ? t(`console.webhooks.disabled.${e.disabled_reason ?? 'requested'}`)
            : t('console.webhooks.enabled'),
        })),
        canManage: permits(session.user.role, 'webhooks:write'),
        deliveries: rows.map((d) => ({
          id: d.id,
          url: d.url,
          eventType: d.event_type,
          status: t(`console.webhooks.status.${d.status}`),
          response: d.response_status === null ? '—' : String(d.response_status),
          attempts: d.attempt_count,
          created: localDateTime(d.created_at, timeZone, lang),
        })),
        next: next && `/console/webhooks?cursor=${encodeURIComponent(next)}`,
      });
    },
  );

  app.get(
    '/webhooks/deliveries/:id',
    consoleRoute('webhooks:read', { params: IdParams }),
    async (request, reply) => {
      const { session, scope, lang, timeZone, t } = readerOf(request);
      const d = await consoleDeliveries.get(scope, (request.params as { id: string }).id);
      // The payload as sent: the event, read with the user's own scopes.
      const [attempts, event] = await Promise.all([
        webhookEndpoints.attempts(scope, d.id),
        deps.events.get(scope, d.event_id).catch((error: unknown) => {
          if (error instanceof ScopeInsufficientError) return null;
          throw error;
        }),
      ]);
      const payload =
        event &&
        JSON.stringify(
          { type: event.type, timestamp: event.createdAt, data: event.data, actor: event.actor },
          null,
          2,
        );
      return showPage(request, reply, 'webhook-delivery', t('console.webhooks.delivery'), {
        delivery: {
          id: d.id,
          url: d.url,
          eventType: d.event_type,
          eventId: d.event_id,
          status: t(`console.webhooks.status.${d.status}`),
          attempts: d.attempt_count,
          nextAttempt:
            d.status === 'pending' ? localDateTime(d.next_attempt_at, timeZone, lang) : null,
          created: localDateTime(d.created_at, timeZone, lang),
        },
        payload,
        attempts: attempts.map((a) => ({
          attempt: a.attempt,
          at: localDateTime(a.attempted_at, timeZone, lang),
          duration: t('console.webhooks.milliseconds', { ms: a.duration_ms }),
          response: a.response_status === null ? '—' : String(a.response_status),
          error: a.error ?? '',
          body: a.response_body ?? '',
        })),
        canRetry:
          d.status === 'failed' &&
          !d.endpoint_disabled &&
          permits(session.user.role, 'deliveries:retry'),
      });
    },
  );

  app.post(
    '/webhooks/deliveries/:id/retry',
    consoleRoute('deliveries:retry', { params: IdParams, body: ActionForm }),
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const form = request.body as Static<typeof ActionForm>;
      const delivery = await consoleDeliveries.get(sessionOf(request).actor, id);
      const write = consoleWrite(request, form, (retried: { id: string }) => {
        return `/console/webhooks/deliveries/${retried.id}`;
      });
      const written = await webhookEndpoints.retryDelivery(write, delivery.endpoint_id, id);
      return reply.code(303).redirect(write.location(written));
    },
  );

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    app.post(
      `/webhooks/endpoints/:id/${action}`,
      consoleRoute('webhooks:write', { params: IdParams, body: ActionForm }),
      async (request, reply) => {
        const { id } = request.params as Static<typeof IdParams>;
        const form = request.body as Static<typeof ActionForm>;
        const write = consoleWrite(request, form, () => '/console/webhooks');
        const written = await webhookEndpoints.change(write, id, { disabled });
        return reply.code(303).redirect(write.location(written));
      },
    );
  }
}
