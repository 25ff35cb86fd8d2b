// Settings → Users (admins only): the tenant's console users, inviting one (the link is shown
// once, and e-mailed) and removing one (its sessions end at once).
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Composition } from '../../composition.ts';
import { LOCALES } from '../../documents/model.ts';
import { ParameterInvalidError } from '../../errors.ts';
import { consoleRoute, sessionOf, showPage, textOf } from '../page.ts';
import { ROLES } from '../roles.ts';

const InviteForm = Type.Object({
  _csrf: Type.Optional(Type.String()),
  email: Type.String({ maxLength: 254 }),
  role: Type.String({ maxLength: 20 }),
  locale: Type.Optional(Type.String({ maxLength: 10 })),
});
const UserParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const CsrfOnly = Type.Object({ _csrf: Type.Optional(Type.String()) });

export async function userPages(app: FastifyInstance, { consoleUsers }: Composition) {
  app.get('/settings/users', consoleRoute('users:manage'), async (request, reply) => {
    const session = sessionOf(request);
    const t = textOf(request);
    const users = await consoleUsers.list(session.user.tenantId);
    return showPage(request, reply, 'users', t('console.users.title'), {
      users: users.map((user) => ({
        ...user,
        roleLabel: t(`console.role.${user.role}`),
        self: user.id === session.user.id,
      })),
      roles: ROLES.map((role) => ({ value: role, label: t(`console.role.${role}`) })),
      locales: LOCALES,
      invited: null,
    });
  });

  app.post(
    '/settings/users',
    consoleRoute('users:manage', { body: InviteForm }),
    async (request, reply) => {
      const session = sessionOf(request);
      const form = request.body as Static<typeof InviteForm>;
      const t = textOf(request);
      const invitation = await consoleUsers.invite(session.user.tenantId, {
        email: form.email,
        role: form.role,
        locale: form.locale || undefined,
      });
      return showPage(request, reply.code(201), 'invited', t('console.users.invited'), {
        email: invitation.user.email,
        url: invitation.url,
      });
    },
  );

  app.post(
    '/settings/users/:id/remove',
    consoleRoute('users:manage', { params: UserParams, body: CsrfOnly }),
    async (request, reply) => {
      const session = sessionOf(request);
      const { id } = request.params as Static<typeof UserParams>;
      if (id === session.user.id) {
        throw new ParameterInvalidError('id', 'You cannot remove yourself; ask another admin.');
      }
      await consoleUsers.remove(session.user.tenantId, id);
      return reply.code(303).redirect('/console/settings/users');
    },
  );
}
