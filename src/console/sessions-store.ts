// SQL of console sessions. A session is found by its tenant and the SHA-256 of its token
// (primary key); only sessions of users not removed are found.
import type { Queryable } from '../db/pool.ts';
import type { Environment } from '../tenancy.ts';
import type { UserRow } from './users-store.ts';

export interface SessionRow {
  tenant_id: string;
  token_hash: Buffer;
  user_id: string;
  environment: Environment;
  last_seen_at: Date;
}

export async function insertSession(
  db: Queryable,
  session: { tenantId: string; tokenHash: Buffer; userId: string; environment: Environment },
  at: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO console_sessions (tenant_id, token_hash, user_id, environment, created_at,
                                   last_seen_at)
     VALUES ($1, $2, $3, $4, $5, $5)`,
    [session.tenantId, session.tokenHash, session.userId, session.environment, at],
  );
}

/**
 * The session and its user, when it was seen since `idleSince`; it is marked seen `at` in the
 * same statement. A session idle longer is deleted there too.
 */
export async function touchSession(
  db: Queryable,
  tenantId: string,
  tokenHash: Buffer,
  at: Date,
  idleSince: Date,
): Promise<(SessionRow & { user: UserRow }) | null> {
  const { rows } = await db.query<SessionRow & { user: UserRow }>(
    `WITH expired AS (
       DELETE FROM console_sessions
        WHERE tenant_id = $1 AND token_hash = $2 AND last_seen_at < $4
     ), seen AS (
       UPDATE console_sessions SET last_seen_at = $3
        WHERE tenant_id = $1 AND token_hash = $2 AND last_seen_at >= $4
       RETURNING *
     )
     SELECT s.*, to_jsonb(u) AS user
       FROM seen s JOIN console_users u
         ON u.tenant_id = $1 AND u.tenant_id = s.tenant_id AND u.id = s.user_id AND u.removed_at IS NULL`,
    [tenantId, tokenHash, at, idleSince],
  );
  const row = rows[0];
  if (!row) return null;
  const user = row.user as unknown as Record<string, unknown>;
  row.user = {
    ...(user as unknown as UserRow),
    created_at: new Date(user.created_at as string),
    removed_at: null,
  };
  return row;
}

export async function deleteSession(
  db: Queryable,
  tenantId: string,
  tokenHash: Buffer,
): Promise<void> {
  await db.query('DELETE FROM console_sessions WHERE tenant_id = $1 AND token_hash = $2', [
    tenantId,
    tokenHash,
  ]);
}

export async function setSessionEnvironment(
  db: Queryable,
  tenantId: string,
  tokenHash: Buffer,
  environment: Environment,
): Promise<void> {
  await db.query(
    'UPDATE console_sessions SET environment = $3 WHERE tenant_id = $1 AND token_hash = $2',
    [tenantId, tokenHash, environment],
  );
}
