// The reads every store makes of its own objects: one row by its primary key (tenant_id,
// environment, id), optionally locked for the write that follows in the same transaction, and
// the rows of a list of ids.
import type { QueryResultRow } from 'pg';
import { ResourceMissingError } from '../errors.ts';
import type { TenantScope } from '../tenancy.ts';
import type { Queryable } from './pool.ts';
import { TEXT_TYPES } from './text-rows.ts';

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
 * prepares the statements once per connection (`name` and `name_for_update`), for hot reads;
 * `text` reads every column as its text (./text-rows.ts).
 */
export function rowById<Row extends QueryResultRow>(
  select: string,
  options: { lock?: 'FOR UPDATE' | 'FOR NO KEY UPDATE'; name?: string; text?: boolean } = {},
): RowById<Row> {
  const { lock = 'FOR UPDATE', name } = options;
  const types = options.text ? { types: TEXT_TYPES } : {};
  const read = `${select} WHERE tenant_id = $1 AND environment = $2 AND id = $3`;
  const locked = `${read} ${lock}`;
  return async (db, scope, id, { forUpdate = false } = {}) => {
    const values = [scope.tenantId, scope.environment, id];
    const text = forUpdate ? locked : read;
    const { rows } = await db.query<Row>(
      name === undefined
        ? { text, values, ...types }
        : { name: forUpdate ? `${name}_for_update` : name, text, values, ...types },
    );
    return rows[0];
  };
}

/** Reads one row by id that must be there: 404 resource_missing where there is none. */
export type ExistingRowById<Row> = (
  db: Queryable,
  scope: TenantScope,
  id: string,
  options?: { forUpdate?: boolean },
) => Promise<Row>;

/**
 * The reader of one row the request names: an id of another tenant or environment is missing
 * too, so it tells nothing of them. `resource` names the object in the error ("tax rate").
 */
export function existingRowById<Row>(read: RowById<Row>, resource: string): ExistingRowById<Row> {
  return async (db, scope, id, options) => {
    const row = await read(db, scope, id, options);
    if (!row) throw new ResourceMissingError(resource, id);
    return row;
  };
}

/** Reads the rows whose key is one of `ids` in the tenant and environment. */
export type RowsByIds<Row> = (
  db: Queryable,
  scope: TenantScope,
  ids: readonly string[],
) => Promise<Row[]>;

/**
 * The reader of the rows whose `column` (id by default) is one of some ids; ids of nothing are
 * left out, and no ids cost no round trip. `select` is the store's constant `SELECT … FROM …`;
 * `alias` names its table where it joins others; `orderBy` is a constant too.
 */
export function rowsByIds<Row extends QueryResultRow>(
  select: string,
  options: { column?: string; alias?: string; orderBy?: string } = {},
): RowsByIds<Row> {
  const { column = 'id', alias, orderBy } = options;
  const t = alias === undefined ? '' : `${alias}.`;
  const scoped = `${t}tenant_id = $1 AND ${t}environment = $2`;
  const order = orderBy === undefined ? '' : ` ORDER BY ${orderBy}`;
  const many = `${select} WHERE ${scoped} AND ${t}${column} = ANY($3::text[])${order}`;
  // One id is asked for most often (an invoice's lines): compared with =, its prepared
  // statement keeps one plan, where PostgreSQL plans = ANY of an array again at every
  // execution (the array's length is in the cost).
  const one = `${select} WHERE ${scoped} AND ${t}${column} = $3${order}`;
  return async (db, scope, ids) => {
    if (ids.length === 0) return [];
    const [text, key] = ids.length === 1 ? [one, ids[0]] : [many, ids];
    const { rows } = await db.query<Row>(text, [scope.tenantId, scope.environment, key]);
    return rows;
  };
}
