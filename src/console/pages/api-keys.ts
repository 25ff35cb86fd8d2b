// Settings → API keys (admins; docs/console.md, "API keys"): the environment's keys, and
// creating, rotating and revoking one through the keys service the API and the CLI use, with
// the person as the actor. A new secret is shown once, on the answer to the form that made
// it: a replay of that form (a reload) goes back to the list, never shows it again.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Written } from '../../db/unit-of-work.ts';
import type { Composition } from '../../composition.ts';
import { formatDate } from '../../documents/i18n.ts';
import type { IssuedApiKey } from '../../keys/service.ts';
import { SCOPES } from '../../keys/scopes.ts';
import { buildPage, listBinding, readPageRequest } from '../../paging.ts';
import { consoleRoute, consoleWrite, sessionOf, showPage, textOf } from '../page.ts';

const LIST = '/console/settings/api-keys';
const PAGE_SIZE = 50;
const ListQuery = Type.Object({ cursor: Type.Optional(Type.String({ maxLength: 500 })) });
const KeyAction = Type.Object({
  id: Type.String({ maxLength: 100 }),
  action: Type.String({ enum: ['rotate', 'revoke'] }),
});
const CreateForm = Type.Object({
  _csrf: Type.Optional(Type.String()),
  idempotencyKey: Type.String({ maxLength: 100 }),
  name: Type.String({ maxLength: 200 }),
  scopes: Type.Optional(
    Type.Union([Type.String({ maxLength: 40 }), Type.Array(Type.String({ maxLength: 40 }))]),
  ),
});
/** How long a rotated key keeps working: until revoked (''), or seconds. */
const EXPIRY = ['', '3600', '86400', '604800'] as const;
const EXPIRY_LABEL = {
  '': 'console.apiKeys.keepOld',
  '3600': 'console.apiKeys.expireHour',
  '86400': 'console.apiKeys.expireDay',
  '604800': 'console.apiKeys.expireWeek',
} as const;
/** Rolling or revoking a key; a roll may say how long the old key keeps working. */
const KeyForm = Type.Object({
  _csrf: Type.Optional(Type.String()),
  idempotencyKey: Type.String({ maxLength: 100 }),
  expireOld: Type.Optional(Type.String({ enum: [...EXPIRY] })),
});

/**
 * The answer to a form that made a key: its secret, this once. A replay of the form (a
 * reload) goes to the list instead: the secret is not kept to be shown again.
 */
function answerIssued(
  request: FastifyRequest,
  reply: FastifyReply,
  write: { location: (written: Written<IssuedApiKey>) => string },
  written: Written<IssuedApiKey>,
  title: 'console.apiKeys.created' | 'console.apiKeys.rotated',
) {
  if (written.replayed) return reply.code(303).redirect(write.location(written));
  const key = written.value;
  return showPage(request, reply.code(201), 'api-key-issued', textOf(request)(title), {
    name: key.name ?? key.id,
    secret: key.secret,
    scopes: key.scopes.join(', '),
  });
}

export async function apiKeyPages(app: FastifyInstance, { apiKeys, cursors }: Composition) {
  app.get(
    '/settings/api-keys',
    consoleRoute('keys:read', { querystring: ListQuery }),
    async (request, reply) => {
      const scope = sessionOf(request).actor;
      const { lang } = request.console;
      const t = textOf(request);
      const query = request.query as Static<typeof ListQuery>;
      const binding = listBinding(scope, 'console api keys');
      const page = readPageRequest(cursors, { limit: PAGE_SIZE, ...query }, binding);
      const found = await apiKeys.list(scope, page);
      const { data: rows, nextCursor: next } = buildPage(cursors, found, page, binding, (k) => k);
      const date = (d: Date | null) => (d ? formatDate(d.toISOString().slice(0, 10), lang) : '—');
      return showPage(request, reply, 'api-keys', t('console.apiKeys.title'), {
        keys: rows.map((k) => ({
          id: k.id,
          name: k.name ?? '—',
          redacted: k.redacted,
          scopes: k.scopes.join(', '),
          created: date(k.created_at),
          lastUsed: date(k.last_used_at),
          status: k.revoked_at
            ? t('console.apiKeys.revoked', { date: date(k.revoked_at) })
            : k.expires_at
              ? t('console.apiKeys.expires', { date: date(k.expires_at) })
              : t('console.apiKeys.active'),
          active: k.revoked_at === null,
        })),
        next: next && `${LIST}?cursor=${encodeURIComponent(next)}`,
        scopes: SCOPES,
        expiry: EXPIRY.map((value) => ({ value, label: t(EXPIRY_LABEL[value]) })),
      });
    },
  );

  app.post(
    '/settings/api-keys',
    consoleRoute('keys:write', { body: CreateForm }),
    async (request, reply) => {
      const form = request.body as Static<typeof CreateForm>;
      const scopes = form.scopes === undefined ? [] : [form.scopes].flat();
      const write = consoleWrite(request, form, () => LIST);
      const written = await apiKeys.create(write, { scopes, name: form.name.trim() || null });
      return answerIssued(request, reply, write, written, 'console.apiKeys.created');
    },
  );

  // Roll (a new key with the same scopes) or revoke a key of this environment.
  app.post(
    '/settings/api-keys/:id/:action',
    consoleRoute('keys:write', { params: KeyAction, body: KeyForm }),
    async (request, reply) => {
      const { id, action } = request.params as Static<typeof KeyAction>;
      const form = request.body as Static<typeof KeyForm>;
      const write = consoleWrite(request, form, () => LIST);
      if (action === 'revoke') {
        return reply.code(303).redirect(write.location(await apiKeys.revoke(write, id)));
      }
      const expireOldInSeconds = form.expireOld ? Number(form.expireOld) : null;
      const written = await apiKeys.rotate(write, id, { expireOldInSeconds });
      return answerIssued(request, reply, write, written, 'console.apiKeys.rotated');
    },
  );
}
