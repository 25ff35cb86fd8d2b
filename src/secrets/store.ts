// SQL of the secrets key's check: a known text sealed under the key, kept in server_secrets (a
// reference table of server-wide values; it holds no secret).
import type { Queryable } from '../db/pool.ts';

export async function selectKeyCheck(db: Queryable): Promise<string | undefined> {
  const { rows } = await db.query<{ value: string }>(
    `SELECT value FROM server_secrets WHERE name = 'key_check'`,
  );
  return rows[0]?.value;
}

/** Stores the check unless one is stored; returns the one stored. */
export async function insertKeyCheck(db: Queryable, sealed: string): Promise<string> {
  await db.query(
    `INSERT INTO server_secrets (name, value) VALUES ('key_check', $1) ON CONFLICT (name) DO NOTHING`,
    [sealed],
  );
  return (await selectKeyCheck(db))!;
}

export async function updateKeyCheck(db: Queryable, sealed: string): Promise<void> {
  await db.query(`UPDATE server_secrets SET value = $1 WHERE name = 'key_check'`, [sealed]);
}
