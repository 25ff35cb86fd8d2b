// The invitation link's page (docs/console.md, "Users"): the invited person sets a password,
// once; then signs in. An unknown, used or expired link gets the same 404 page.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Composition } from '../../composition.ts';
import { MIN_PASSWORD_LENGTH } from '../passwords.ts';
import { consoleRoute, showPage, textOf } from '../page.ts';

const LinkParams = Type.Object({ link: Type.String({ maxLength: 200 }) });
const PasswordForm = Type.Object({
  _csrf: Type.Optional(Type.String()),
  password: Type.String({ maxLength: 256 }),
  repeat: Type.String({ maxLength: 256 }),
});

export async function invitationPages(app: FastifyInstance, { consoleUsers }: Composition) {
  app.get(
    '/invitation/:link',
    consoleRoute(null, { params: LinkParams }),
    async (request, reply) => {
      const t = textOf(request);
      return showPage(request, reply, 'invitation', t('console.invitation.title'), {
        minLength: MIN_PASSWORD_LENGTH,
        error: null,
      });
    },
  );

  app.post(
    '/invitation/:link',
    consoleRoute(null, { params: LinkParams, body: PasswordForm }),
    async (request, reply) => {
      const { link } = request.params as Static<typeof LinkParams>;
      const form = request.body as Static<typeof PasswordForm>;
      const t = textOf(request);
      const again = (error: string) =>
        showPage(request, reply.code(400), 'invitation', t('console.invitation.title'), {
          minLength: MIN_PASSWORD_LENGTH,
          error,
        });
      if (form.password !== form.repeat) return again(t('console.invitation.mismatch'));
      if (form.password.length < MIN_PASSWORD_LENGTH) {
        return again(t('console.invitation.tooShort', { length: MIN_PASSWORD_LENGTH }));
      }
      const user = await consoleUsers.accept(link, form.password);
      if (!user) {
        return showPage(request, reply.code(404), 'error', t('console.error.linkInvalid'), {
          message: t('console.error.linkInvalid.text'),
        });
      }
      return reply
        .code(303)
        .redirect(`/console/sign-in?tenant=${encodeURIComponent(user.tenantId)}`);
    },
  );
}
