// The read every store makes of its own objects: one row by its primary key (tenant_id,
// environment, id), optionally locked for the write that follows in the same transaction.
import type { QueryResultRow } from 'pg';
import type { TenantScope } from '../tenancy.ts';
import type { Queryable } from './pool.ts';

/** Reads one row by id in the tenant and environment; undefined if there is none. */
export type RowById<Row> = (
  db: Queryable,
  scope: TenantScope,
  id: string,
  options?: { forUpdate?: boolean },
) => Promise<Row | undefined>;

/**
 * The reader of one row by id. `select` is the store's constant `SELECT columns FROM table`;
 * `lock` is how `forUpdate` locks the row: FOR NO KEY UPDATE where the write never changes the
 * key, so rows being inserted meanwhile with a foreign key to it are not held up. `name`
 * prepares the statements once per connection (`name` and `name_for_update`), for hot reads.
 */
export function rowById<Row extends QueryResultRow>(
  select: string,
  options: { lock?: 'FOR UPDATE' | 'FOR NO KEY UPDATE'; name?: string } = {},
): RowById<Row> {
  const { lock = 'FOR UPDATE', name } = options;
  const read = `${select} WHERE tenant_id = $1 AND environment = $2 AND id = $3`;
  const locked = `${read} ${lock}`;
  return async (db, scope, id, { forUpdate = false } = {}) => {
    const values = [scope.tenantId, scope.environment, id];
    const text = forUpdate ? locked : read;
    const { rows } = await db.query<Row>(
      name === undefined
        ? { text, values }
        : { name: forUpdate ? `${name}_for_update` : name, text, values },
    );
    return rows[0];
  };
}

/** Reads the rows with these ids in the tenant and environment, in one query; unknown ids are left out. */
export type RowsByIds<Row> = (
  db: Queryable,
  scope: TenantScope,
  ids: readonly string[],
) => Promise<Row[]>;

/** The reader of many rows by id (primary key look-ups): none asked, none read. */
export function rowsByIds<Row extends QueryResultRow>(select: string): RowsByIds<Row> {
  const text = `${select} WHERE tenant_id = $1 AND environment = $2 AND id = ANY($3::text[])`;
  return async (db, scope, ids) => {
    if (ids.length === 0) return [];
    const { rows } = await db.query<Row>(text, [scope.tenantId, scope.environment, ids]);
    return rows;
  };
}
