// SQL of the secrets key's check: a known text sealed under the key, kept in server_secrets (a
// reference table of server-wide values; it holds no secret); and of the sealed columns of
// tenants' tables, read and written again when the key rotates (./reseal.ts).
import type { Queryable } from '../db/pool.ts';
import type { Environment, TenantScope } from '../tenancy.ts';

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

/**
 * A column of sealed values in a tenant's table, walked across tenants when values sealed
 * under a previous key are sealed again: the table, its key after (tenant_id, environment), the
 * column, and the statement's name in CROSS_TENANT_STATEMENTS (src/db/sharding.ts).
 */
export interface SealedColumn {
  table: string;
  key: string;
  column: string;
  marker: string;
}

/** One sealed value: where it is, and the value as stored. */
export interface SealedValue {
  tenant_id: string;
  environment: Environment;
  key: string;
  sealed: string;
}

/** The column's values, a page at a time in primary-key order, across tenants. */
export async function selectSealedValues(
  db: Queryable,
  where: SealedColumn,
  after: SealedValue | null,
  limit: number,
): Promise<SealedValue[]> {
  const { table, key, column, marker } = where;
  const { rows } = await db.query<SealedValue>(
    `-- spans tenants: ${marker}
     SELECT tenant_id, environment, ${key} AS key, ${column} AS sealed FROM ${table}
      WHERE (tenant_id, environment, ${key}) > ($1, $2, $3)
      ORDER BY tenant_id, environment, ${key} LIMIT $4`,
    [after?.tenant_id ?? '', after?.environment ?? '', after?.key ?? '', limit],
  );
  return rows;
}

/** Replaces a sealed value with the same value sealed anew, unless it changed meanwhile. */
export async function replaceSealedValue(
  db: Queryable,
  where: SealedColumn,
  scope: TenantScope,
  key: string,
  before: string,
  sealed: string,
): Promise<void> {
  await db.query(
    `UPDATE ${where.table} SET ${where.column} = $5
      WHERE tenant_id = $1 AND environment = $2 AND ${where.key} = $3 AND ${where.column} = $4`,
    [scope.tenantId, scope.environment, key, before, sealed],
  );
}
