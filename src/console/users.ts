// Console users of one tenant (docs/console.md, "Users"): invited by an operator (`billing
// users invite`) or an admin, each with a one-time link valid 72 hours to set a password;
// removed users are kept (their actions stay attributable) but can no longer sign in, and
// their sessions end at once. Writes go through the unit of work like every other.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import { unitOfWork, writtenValue } from '../db/unit-of-work.ts';
import { resolveLocale } from '../documents/i18n.ts';
import { ParameterInvalidError, ResourceMissingError } from '../errors.ts';
import type { HostedLinks } from '../hosted/links.ts';
import { newId } from '../ids.ts';
import { queueMail } from '../mail/outbox.ts';
import type { SecretsKeyring } from '../secrets/keyring.ts';
import { operator } from '../tenancy.ts';
import { getTenant } from '../tenants/service.ts';
import { INVITATION_MAIL, invitationMessage } from './invitation-mail.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords.ts';
import { isRole, type Role } from './roles.ts';
import { invitationToken, splitTenantToken, tokenHash } from './tokens.ts';
import {
  insertInvitation,
  insertUser,
  lockInvitation,
  removeUser,
  selectUser,
  selectUsers,
  setPassword,
  useInvitation,
  type UserRow,
} from './users-store.ts';

export const INVITATION_HOURS = 72;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface ConsoleUser {
  id: string;
  tenantId: string;
  email: string;
  role: Role;
  locale: string | null;
  /** False until the invitation is accepted. */
  active: boolean;
  createdAt: string;
}

export function userFromRow(row: UserRow): ConsoleUser {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    email: row.email,
    role: row.role,
    locale: row.locale,
    active: row.password_hash !== null,
    createdAt: row.created_at.toISOString(),
  };
}

export interface Invitation {
  user: ConsoleUser;
  /** The one-time link; only its hash is stored. */
  url: string;
  expiresAt: string;
}

export interface InviteInput {
  email: string;
  role: string;
  locale?: string | undefined;
}

/** The console's users: made once by the composition root. */
export function createConsoleUsers(deps: {
  db: Db;
  clock: Clock;
  secrets: SecretsKeyring;
  links: HostedLinks;
}) {
  const { db, clock, links } = deps;
  const invitationKey = deps.secrets.derive('console invitations');
  const invitationUrl = (tenantId: string, invitationId: string) =>
    `${links.origin()}/console/invitation/${tenantId}.${invitationToken(invitationKey, tenantId, invitationId)}`;

  return {
    invitationUrl,

    /** Invites a person: a user without a password, and a link (also e-mailed to them). */
    async invite(tenantId: string, input: InviteInput): Promise<Invitation> {
      const email = input.email.trim().toLowerCase();
      if (!EMAIL.test(email) || email.length > 254) {
        throw new ParameterInvalidError('email', 'Give an e-mail address such as ada@example.com.');
      }
      if (!isRole(input.role)) {
        throw new ParameterInvalidError('role', 'The role is one of admin, finance, viewer.');
      }
      const role = input.role;
      const tenant = await getTenant(db, tenantId);
      const locale = input.locale ? resolveLocale(input.locale) : null;
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + INVITATION_HOURS * 3_600_000);
      const written = await unitOfWork(db, { actor: operator(tenantId) }, async (uow) => {
        const row = await insertUser(uow.tx, tenantId, {
          id: newId('usr'),
          email,
          role,
          locale,
          createdAt: now,
        });
        if (!row) {
          throw new ParameterInvalidError('email', `${email} is already a user of this tenant.`);
        }
        const id = newId('uinv');
        const url = invitationUrl(tenantId, id);
        await insertInvitation(uow.tx, tenantId, {
          id,
          userId: row.id,
          tokenHash: tokenHash(url.slice(url.lastIndexOf('.') + 1)),
          expiresAt,
          createdAt: now,
        });
        await queueMail(uow, {
          kind: INVITATION_MAIL,
          subjectId: id,
          to: email,
          replyTo: null,
          ...invitationMessage(resolveLocale(locale), tenant.name),
        });
        return { user: userFromRow(row), url, expiresAt: expiresAt.toISOString() };
      });
      return writtenValue(written);
    },

    /**
     * Sets the password of the invitation's user and uses the invitation up: its user, or null
     * when the link is unknown, used or expired (the page says the same for all three).
     */
    async accept(link: string, password: string): Promise<ConsoleUser | null> {
      if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
        throw new ParameterInvalidError(
          'password',
          `A password has ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.`,
        );
      }
      const parts = splitTenantToken(link);
      if (!parts) return null;
      const passwordHash = await hashPassword(password);
      const written = await unitOfWork(db, { actor: operator(parts.tenantId) }, async ({ tx }) => {
        const invitation = await lockInvitation(tx, parts.tenantId, tokenHash(parts.token));
        const now = clock.now();
        if (!invitation || invitation.used_at !== null || invitation.expires_at <= now) {
          return null;
        }
        const user = await selectUser(tx, parts.tenantId, invitation.user_id);
        if (!user) return null;
        await setPassword(tx, parts.tenantId, user.id, passwordHash);
        await useInvitation(tx, parts.tenantId, invitation.id, now);
        return userFromRow({ ...user, password_hash: passwordHash });
      });
      return writtenValue(written);
    },

    async list(tenantId: string): Promise<ConsoleUser[]> {
      return (await selectUsers(db, tenantId)).map(userFromRow);
    },

    /** Removes the user: its sessions end and its open invitation is void, at once. */
    async remove(tenantId: string, userId: string): Promise<ConsoleUser> {
      const written = await unitOfWork(db, { actor: operator(tenantId) }, async ({ tx }) =>
        removeUser(tx, tenantId, userId, clock.now()),
      );
      const row = writtenValue(written);
      if (!row) throw new ResourceMissingError('user', userId);
      return userFromRow(row);
    },
  };
}

export type ConsoleUsers = ReturnType<typeof createConsoleUsers>;
