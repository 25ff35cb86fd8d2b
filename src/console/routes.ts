// The console at /console (docs/console.md): server-rendered pages for a tenant's staff, in an
// encapsulated scope with what only it needs: cookies, form bodies, CSRF tokens, the session,
// the role guard, and HTML answers for every error. Each page's routes live in ./pages/ and
// are listed in ./pages/index.ts.
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from './pages/sign-in.ts';
import { resolveLocale } from '../documents/i18n.ts';
import { ApiError } from '../errors.ts';
import { toApiError } from '../http/error-handler.ts';
import type { RoutePlugin } from '../http/plugin.ts';
import { acceptedLocale } from '../hosted/views.ts';
import { getSettingsWithTenantName } from '../settings/service.ts';
import { csrfUserInfo, HOST_COOKIE, showPage, textOf } from './page.ts';
import { CONSOLE_PAGES } from './pages/index.ts';
import { permits } from './roles.ts';
import { STYLESHEET } from './views.ts';

const CSRF_COOKIE = '__Host-billing_csrf';

const PAGE_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'referrer-policy': 'same-origin',
  'x-robots-tag': 'noindex, nofollow',
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/** An error page: the status, a heading and a sentence from the catalogue. */
function errorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  kind: 'notFound' | 'forbidden' | 'csrf' | 'invalid' | 'failed' | 'throttled',
  detail?: string,
): FastifyReply {
  const t = textOf(request);
  reply.code(status);
  return showPage(request, reply, 'error', t(`console.error.${kind}`), {
    message: t(`console.error.${kind}.text`),
    detail,
  });
}

export const consoleRoutes: RoutePlugin = async (app, deps) => {
  const { consoleSessions, db } = deps;
  await app.register(fastifyCookie);
  await app.register(fastifyFormbody);
  await app.register(fastifyCsrf, {
    cookieKey: CSRF_COOKIE,
    cookieOpts: HOST_COOKIE,
    // The token is bound to the user info below by an HMAC under a key of the server's.
    csrfOpts: { hmacKey: deps.secrets.derive('console csrf') },
    getUserInfo: csrfUserInfo,
  });
  app.decorateRequest('console', null as unknown as FastifyRequest['console']);

  // After the app's own onRequest hook, which set the API's headers: these replace them. The
  // session is read on every request, and the page's language with it.
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(PAGE_HEADERS);
    const session = await consoleSessions.resolve(request.cookies[SESSION_COOKIE]);
    if (!session) {
      request.console = {
        session: null,
        lang: acceptedLocale(request.headers['accept-language']),
        tenantName: '',
        timeZone: 'UTC',
      };
      return;
    }
    const { settings, tenantName } = await getSettingsWithTenantName(db, session.actor);
    const lang = resolveLocale(session.user.locale, resolveLocale(settings.locale));
    request.console = { session, lang, tenantName, timeZone: settings.time_zone };
  });

  // The guard: a page that needs a user sends one without a session to sign in (an action
  // too: its form is then refused), and one whose role does not permit it gets 403.
  app.addHook('preHandler', async (request, reply) => {
    const needs = request.routeOptions.config.console?.needs;
    if (needs === undefined || needs === null) return;
    const session = request.console.session;
    if (!session) return reply.code(303).redirect('/console/sign-in');
    if (!permits(session.user.role, needs)) return errorPage(request, reply, 403, 'forbidden');
  });
  // Every form carries a CSRF token; what changes anything is a POST.
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST' || reply.sent) return done();
    app.csrfProtection(request, reply, done);
  });

  app.setNotFoundHandler((request, reply) => errorPage(request, reply, 404, 'notFound'));
  app.setErrorHandler((error, request, reply) => {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('FST_CSRF')) return errorPage(request, reply, 403, 'csrf');
    if (error instanceof ApiError) {
      if (error.status === 404) return errorPage(request, reply, 404, 'notFound');
      if (error.status === 403) return errorPage(request, reply, 403, 'forbidden');
      if (error.status < 500)
        return errorPage(request, reply, error.status, 'invalid', error.message);
    }
    // A form or query the route's schema refused: the API's sentence for it.
    if (Array.isArray((error as { validation?: unknown }).validation)) {
      return errorPage(request, reply, 400, 'invalid', toApiError(error).message);
    }
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    if (status >= 400 && status < 500) return errorPage(request, reply, status, 'invalid');
    request.log.error({ err: error }, 'console page failed');
    return errorPage(request, reply, 500, 'failed');
  });

  app.get(
    '/assets/console.css',
    { config: { auth: false }, schema: { hide: true } },
    async (_request, reply) =>
      reply
        .type('text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(STYLESHEET),
  );
  for (const pages of CONSOLE_PAGES) await pages(app, deps);
};
