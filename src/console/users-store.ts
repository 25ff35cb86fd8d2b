// SQL of console users and their invitations. Every query names the tenant.
import type { Queryable } from '../db/pool.ts';
import { allRows, firstRow } from '../db/rows.ts';
import type { Role } from './roles.ts';

export interface UserRow {
  tenant_id: string;
  id: string;
  email: string;
  role: Role;
  password_hash: string | null;
  locale: string | null;
  created_at: Date;
  removed_at: Date | null;
}

export interface NewUser {
  id: string;
  email: string;
  role: Role;
  locale: string | null;
  createdAt: Date;
}

/** Null when the address is taken by a user not removed (index console_users_by_email). */
export async function insertUser(
  db: Queryable,
  tenantId: string,
  user: NewUser,
): Promise<UserRow | null> {
  return firstRow<UserRow>(db, {
    text: `INSERT INTO console_users (tenant_id, id, email, role, locale, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (tenant_id, email) WHERE removed_at IS NULL DO NOTHING
           RETURNING *`,
    values: [tenantId, user.id, user.email, user.role, user.locale, user.createdAt],
  });
}

/** A user not removed, by address (index console_users_by_email). */
export async function selectUserByEmail(
  db: Queryable,
  tenantId: string,
  email: string,
): Promise<UserRow | null> {
  return firstRow<UserRow>(db, {
    text: 'SELECT * FROM console_users WHERE tenant_id = $1 AND email = $2 AND removed_at IS NULL',
    values: [tenantId, email],
  });
}

/** A user not removed, by id (primary key). */
export async function selectUser(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<UserRow | null> {
  return firstRow<UserRow>(db, {
    text: 'SELECT * FROM console_users WHERE tenant_id = $1 AND id = $2 AND removed_at IS NULL',
    values: [tenantId, id],
  });
}

/** The tenant's users not removed, by address (index console_users_by_email). */
export async function selectUsers(db: Queryable, tenantId: string): Promise<UserRow[]> {
  return allRows<UserRow>(db, {
    text: 'SELECT * FROM console_users WHERE tenant_id = $1 AND removed_at IS NULL ORDER BY email',
    values: [tenantId],
  });
}

/** Marks the user removed and ends its sessions and open invitations, in one statement. */
export async function removeUser(
  db: Queryable,
  tenantId: string,
  id: string,
  at: Date,
): Promise<UserRow | null> {
  return firstRow<UserRow>(db, {
    text: `WITH removed AS (
       UPDATE console_users SET removed_at = $3
        WHERE tenant_id = $1 AND id = $2 AND removed_at IS NULL
       RETURNING *
     ), sessions AS (
       DELETE FROM console_sessions s USING removed r
        WHERE s.tenant_id = $1 AND s.user_id = r.id
     ), invitations AS (
       UPDATE console_invitations i SET used_at = $3 FROM removed r
        WHERE i.tenant_id = $1 AND i.user_id = r.id AND i.used_at IS NULL
     )
     SELECT * FROM removed`,
    values: [tenantId, id, at],
  });
}

export async function setPassword(
  db: Queryable,
  tenantId: string,
  id: string,
  passwordHash: string,
): Promise<void> {
  await db.query('UPDATE console_users SET password_hash = $3 WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    id,
    passwordHash,
  ]);
}

export interface InvitationRow {
  tenant_id: string;
  id: string;
  user_id: string;
  expires_at: Date;
  used_at: Date | null;
}

export async function insertInvitation(
  db: Queryable,
  tenantId: string,
  invitation: { id: string; userId: string; tokenHash: Buffer; expiresAt: Date; createdAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO console_invitations (tenant_id, id, user_id, token_hash, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      tenantId,
      invitation.id,
      invitation.userId,
      invitation.tokenHash,
      invitation.expiresAt,
      invitation.createdAt,
    ],
  );
}

/** The invitation of a token, locked (index console_invitations_by_token). */
export async function lockInvitation(
  db: Queryable,
  tenantId: string,
  tokenHash: Buffer,
): Promise<InvitationRow | null> {
  return firstRow<InvitationRow>(db, {
    text: `SELECT tenant_id, id, user_id, expires_at, used_at FROM console_invitations
            WHERE tenant_id = $1 AND token_hash = $2 FOR UPDATE`,
    values: [tenantId, tokenHash],
  });
}

export async function useInvitation(
  db: Queryable,
  tenantId: string,
  id: string,
  at: Date,
): Promise<void> {
  await db.query('UPDATE console_invitations SET used_at = $3 WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    id,
    at,
  ]);
}
