// Signing in and out, and the environment switch (docs/console.md, "Signing in").
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Composition } from '../../composition.ts';
import { consoleRoute, HOST_COOKIE, sessionOf, showPage, textOf } from '../page.ts';

export const SESSION_COOKIE = '__Host-billing_session';
// Remembers which tenant this browser signs in to: not a secret, but no script needs it.
const TENANT_COOKIE = '__Host-billing_tenant';

const Field = (maxLength: number) => Type.String({ maxLength });
const SignInForm = Type.Object({
  _csrf: Type.Optional(Type.String()),
  tenant: Field(100),
  email: Field(254),
  password: Field(256),
});
const SignInQuery = Type.Object({ tenant: Type.Optional(Field(100)) });
const EnvironmentForm = Type.Object({
  _csrf: Type.Optional(Type.String()),
  environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  back: Type.Optional(Field(500)),
});
const CsrfOnly = Type.Object({ _csrf: Type.Optional(Type.String()) });

export async function signInPages(app: FastifyInstance, { consoleSessions }: Composition) {
  app.get('/sign-in', consoleRoute(null, { querystring: SignInQuery }), async (request, reply) => {
    const { tenant } = request.query as Static<typeof SignInQuery>;
    const t = textOf(request);
    return showPage(request, reply, 'sign-in', t('console.signIn.title'), {
      tenant: tenant ?? request.cookies[TENANT_COOKIE] ?? '',
      email: '',
      error: null,
    });
  });

  app.post('/sign-in', consoleRoute(null, { body: SignInForm }), async (request, reply) => {
    const form = request.body as Static<typeof SignInForm>;
    const outcome = await consoleSessions.signIn({
      tenantId: form.tenant,
      email: form.email,
      password: form.password,
      address: request.ip,
    });
    const t = textOf(request);
    if (outcome.signedIn) {
      // A new session, whatever cookie came with the request: no fixation.
      reply.setCookie(SESSION_COOKIE, outcome.cookie, HOST_COOKIE);
      reply.setCookie(TENANT_COOKIE, outcome.user.tenantId, {
        ...HOST_COOKIE,
        maxAge: 365 * 86_400,
      });
      return reply.code(303).redirect('/console');
    }
    // The same answer for a wrong password, an unknown address or tenant, an unaccepted
    // invitation; a throttled sign-in says so, for an address or account alike.
    if (outcome.retryAfter > 0) reply.code(429).header('retry-after', outcome.retryAfter);
    else reply.code(401);
    const minutes = Math.ceil(outcome.retryAfter / 60);
    return showPage(request, reply, 'sign-in', t('console.signIn.title'), {
      tenant: form.tenant,
      email: form.email,
      error:
        outcome.retryAfter > 0
          ? t('console.signIn.throttled', { minutes })
          : t('console.signIn.failed'),
    });
  });

  app.post('/sign-out', consoleRoute(null, { body: CsrfOnly }), async (request, reply) => {
    if (request.console.session) await consoleSessions.signOut(request.console.session);
    reply.clearCookie(SESSION_COOKIE, HOST_COOKIE);
    return reply.code(303).redirect('/console/sign-in');
  });

  app.post(
    '/environment',
    consoleRoute('invoices:read', { body: EnvironmentForm }),
    async (request, reply) => {
      const form = request.body as Static<typeof EnvironmentForm>;
      await consoleSessions.switchEnvironment(sessionOf(request), form.environment);
      // Back to the page the switch was on, never elsewhere.
      const back =
        form.back && /^\/console(\/[\w\-./]*)?$/.test(form.back) ? form.back : '/console';
      return reply.code(303).redirect(back.includes('..') ? '/console' : back);
    },
  );
}
