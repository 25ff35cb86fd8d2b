// What a console page is given and how it answers (docs/console.md, "Adding a page"):
// `request.console` (the session and the page's language), `showPage` (a template inside the
// layout), `consoleWrite` (the unit of work's write request for an action: the signed-in user
// as the actor, the form's idempotency key), and the route option `config.console` that says
// what the page needs (checked before the handler runs).
import { createHash } from 'node:crypto';
import type { FastifyContextConfig, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { canonicalJson } from '../canonical-json.ts';
import type { IdempotentWrite, WriteRequest, Written } from '../db/unit-of-work.ts';
import { t } from '../documents/i18n.ts';
import type { DocumentLocale } from '../documents/model.ts';
import { IdempotencyKeyReusedError } from '../errors.ts';
import { currentEntry, NAVIGATION } from './navigation.ts';
import { permits, type Permission } from './roles.ts';
import type { ConsoleSession } from './sessions.ts';
import { renderPage, type Translate } from './views.ts';

/** The console's cookies: `__Host-` (Secure, Path=/, no Domain), HttpOnly, SameSite=Lax. */
export const HOST_COOKIE = { path: '/', httpOnly: true, secure: true, sameSite: 'lax' } as const;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A console route: what its user needs; null for the pages before sign-in. */
    console?: { needs: Permission | null };
  }
  interface FastifyRequest {
    console: ConsoleRequest;
  }
}

export interface ConsoleRequest {
  session: ConsoleSession | null;
  lang: DocumentLocale;
  tenantName: string;
  /** The tenant's time zone (settings): the calendar of months and days on its pages. */
  timeZone: string;
}

/**
 * The options of a console route: what its user needs (null: none, before sign-in) and the
 * schemas of its query, parameters or form; hidden from the OpenAPI document, which describes
 * the JSON API.
 */
export function consoleRoute(
  needs: Permission | null,
  schema: Omit<FastifySchema, 'hide'> = {},
): { config: FastifyContextConfig; schema: FastifySchema } {
  return { config: { console: { needs }, auth: false }, schema: { hide: true, ...schema } };
}

/** The signed-in session of a route that needs one (the guard has checked it is there). */
export function sessionOf(request: FastifyRequest): ConsoleSession {
  const session = request.console.session;
  if (!session) throw new Error('a console route that needs a user was reached without one');
  return session;
}

/**
 * What the CSRF tokens of a request are bound to: its session (a token made for another
 * session, or before sign-in, is refused), or the state of being signed out.
 */
export function csrfUserInfo(request: FastifyRequest): string {
  return request.console?.session?.tokenHash.toString('hex') ?? 'signed-out';
}

/** What a signed-in page reads of its request: the session, its scope, language, zone, texts. */
export function readerOf(request: FastifyRequest) {
  const session = sessionOf(request);
  const { lang, timeZone } = request.console;
  return { session, scope: session.actor, lang, timeZone, t: textOf(request) };
}

/** The catalogue's texts in the page's language. */
export function textOf(request: FastifyRequest): Translate {
  return (id, values) => t(request.console.lang, id, values);
}

/** Sends `template` with `view` inside the layout, titled by the catalogue's `title`. */
export function showPage(
  request: FastifyRequest,
  reply: FastifyReply,
  template: string,
  title: string,
  view: object = {},
): FastifyReply {
  const { session, lang, tenantName } = request.console;
  const path = request.url.split('?')[0] ?? '/console';
  const current = currentEntry(path);
  const frame = {
    lang,
    title,
    csrf: reply.generateCsrf({ userInfo: csrfUserInfo(request) }),
    signedIn: session && {
      tenantName,
      email: session.user.email,
      environment: session.environment,
      path,
      nav: NAVIGATION.filter((e) => permits(session.user.role, e.needs)).map((e) => ({
        href: e.href,
        label: t(lang, e.label),
        current: e === current,
      })),
    },
  };
  return reply
    .type('text/html; charset=utf-8')
    .header('content-language', lang)
    .send(renderPage(template, frame, view));
}

/**
 * The write request of a console action: the user acts (events name them), and the form's
 * `idempotencyKey` (a fresh one in every form rendered) makes a second submission of the same
 * form a replay: nothing is done again, and the action sends the browser where the first one
 * did (`locate` of its value, kept with the key).
 */
export function consoleWrite<T>(
  request: FastifyRequest,
  form: { idempotencyKey?: string | undefined },
  locate: (value: T) => string,
): WriteRequest & { location: (written: Written<T>) => string } {
  const session = sessionOf(request);
  const { _csrf: _ignored, ...fields } = form as Record<string, unknown>;
  const fingerprint = createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonicalJson(fields)}`)
    .digest();
  let keptLocation = '';
  const idempotency: IdempotentWrite | undefined = form.idempotencyKey
    ? {
        key: `console:${form.idempotencyKey}`,
        replay(kept) {
          if (kept.keyId !== session.user.id || !kept.fingerprint.equals(fingerprint)) {
            throw new IdempotencyKeyReusedError('This form was already sent with other values.');
          }
          keptLocation = kept.body;
        },
        keep: (value) => ({
          fingerprint,
          status: 303,
          body: locate(value as T),
          keyId: session.user.id,
          lineageId: session.user.id,
          requiredScope: null,
          sealed: false,
        }),
        keepRefusal: () => undefined,
      }
    : undefined;
  return {
    actor: session.actor,
    idempotency,
    location: (written) => (written.replayed ? keptLocation : locate(written.value)),
  };
}
