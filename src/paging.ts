// Keyset paging shared by every list: items newest first by (createdAt, id), a `limit` of
// 1..100 (default 25) and an opaque, signed `nextCursor`. A cursor is bound to the tenant,
// the environment, the list and its filters, so one taken from another list (or forged, or
// altered) is refused as cursor_invalid.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { QueryResultRow } from 'pg';
import type { Queryable } from './db/pool.ts';
import { isoInstant, jsonString, TEXT_TYPES } from './db/text-rows.ts';
import type { TenantScope } from './tenancy.ts';
import { CursorInvalidError, ParameterInvalidError } from './errors.ts';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export interface PagePosition {
  /** ISO 8601 with milliseconds, sent to PostgreSQL as text (it reads it as timestamptz). */
  createdAt: string;
  id: string;
}

export interface PageRequest {
  limit: number;
  after: PagePosition | null;
}

interface CursorPayload {
  t: string; // createdAt, ISO 8601 with milliseconds
  i: string; // id
  b: string; // binding: what list this cursor belongs to
}

export class CursorSigner {
  // A key object made once: given the key as a Buffer, createHmac imports it anew for every
  // MAC, which costs several times the MAC itself (10.7 against 2.4 µs of CPU per MAC).
  readonly #secret: KeyObject;

  constructor(secret: Buffer) {
    this.#secret = createSecretKey(secret);
  }

  #mac(data: string): Buffer {
    return createHmac('sha256', this.#secret).update(data).digest().subarray(0, 18);
  }

  sign(payload: CursorPayload): string {
    const data = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${data}.${this.#mac(data).toString('base64url')}`;
  }

  /** A cursor's payload, or null if it is refused (forged, altered, malformed). */
  verify(cursor: string): CursorPayload | null {
    const [data, mac, extra] = cursor.split('.');
    if (!data || !mac || extra !== undefined) return null;
    const expected = this.#mac(data);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as CursorPayload;
      if (
        typeof payload.t !== 'string' ||
        typeof payload.i !== 'string' ||
        typeof payload.b !== 'string' ||
        Number.isNaN(Date.parse(payload.t))
      ) {
        return null;
      }
      return payload;
    } catch {
      return null;
    }
  }
}

/** What a cursor is bound to: tenant, environment, list, and the filters in force. */
export function listBinding(
  scope: TenantScope,
  list: string,
  filters: Record<string, string | undefined> = {},
): string {
  const parts = Object.keys(filters)
    .sort()
    .filter((k) => filters[k] !== undefined)
    .map((k) => `${k}=${filters[k]}`);
  return JSON.stringify([scope.tenantId, scope.environment, list, ...parts]);
}

export function readPageRequest(
  signer: CursorSigner,
  query: { limit?: number; cursor?: string },
  binding: string,
): PageRequest {
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ParameterInvalidError('limit', 'limit must be an integer from 1 to 100.');
  }
  if (query.cursor === undefined) return { limit, after: null };
  const payload = signer.verify(query.cursor);
  if (!payload || payload.b !== binding) throw new CursorInvalidError();
  return { limit, after: { createdAt: payload.t, id: payload.i } };
}

/**
 * The rows of the page and its nextCursor, from rows fetched with LIMIT limit + 1: the extra
 * row only tells that another page exists, so nextCursor is null exactly on the last page.
 * `createdAt` gives a row's position as ISO text.
 */
function cutPage<Row extends { id: string }>(
  signer: CursorSigner,
  rows: Row[],
  request: PageRequest,
  binding: string,
  createdAt: (row: Row) => string,
): { pageRows: Row[]; nextCursor: string | null } {
  const hasMore = rows.length > request.limit;
  const pageRows = hasMore ? rows.slice(0, request.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  const nextCursor =
    hasMore && last ? signer.sign({ t: createdAt(last), i: last.id, b: binding }) : null;
  return { pageRows, nextCursor };
}

/** The page `{ data, nextCursor }` built from rows fetched with LIMIT limit + 1. */
export function buildPage<Row extends { created_at: Date; id: string }, Item>(
  signer: CursorSigner,
  rows: Row[],
  request: PageRequest,
  binding: string,
  toItem: (row: Row) => Item,
): { data: Item[]; nextCursor: string | null } {
  const { pageRows, nextCursor } = cutPage(signer, rows, request, binding, (row) =>
    row.created_at.toISOString(),
  );
  return { data: pageRows.map(toItem), nextCursor };
}

/**
 * The page as JSON text, `{"data":[…],"nextCursor":…}`, from rows read as text (LIMIT limit + 1,
 * see buildPage) that `toJson` writes as the item's JSON.
 */
export function pageJson<Row extends { created_at: string; id: string }>(
  signer: CursorSigner,
  rows: Row[],
  request: PageRequest,
  binding: string,
  toJson: (row: Row) => string,
): string {
  const { pageRows, nextCursor } = cutPage(signer, rows, request, binding, (row) =>
    isoInstant(row.created_at),
  );
  return `{"data":[${pageRows.map(toJson).join(',')}],"nextCursor":${jsonString(nextCursor)}}`;
}

/** The keyset part of one page's query (see keysetPage). */
export interface KeysetPage {
  /** `AND (created_at, id) < (…)` past the first page, else empty: appended to the WHERE. */
  after: string;
  /** `ORDER BY created_at DESC, id DESC LIMIT $n`: ends the query. */
  orderBy: string;
  /** The query's parameters: the store's own, the limit, then the position if any. */
  values: unknown[];
  /** 'First' or 'After', to name each variant's prepared statement apart. */
  variant: 'First' | 'After';
}

/**
 * The keyset part of a list's query, newest first by (created_at, id). The store writes its
 * query with its own conditions on $1..$n (`values`: tenant, environment, then its filters),
 * appends `after` to the WHERE and ends with `orderBy`; the limit becomes $n+1 and the
 * position $n+2, $n+3. Both fragments are fixed, so each filter variant has two constant texts,
 * and the position is a row comparison rather than "($n IS NULL OR …)": it is then a bound of
 * the list's index (tenant_id, environment, [filter,] created_at, id), so a deep page costs
 * what the first does, whatever plan (custom or generic) runs it.
 */
export function keysetPage(
  values: readonly unknown[],
  after: PagePosition | null,
  limit: number,
): KeysetPage {
  const n = values.length;
  return {
    after: after ? `AND (created_at, id) < ($${n + 2}, $${n + 3})` : '',
    orderBy: `ORDER BY created_at DESC, id DESC LIMIT $${n + 1}`,
    values: after ? [...values, limit, after.createdAt, after.id] : [...values, limit],
    variant: after ? 'After' : 'First',
  };
}

/**
 * A list's filter: a column that must equal the value, or the condition that the value's
 * parameter (`$3`, …) makes. A filter whose value is undefined is not in force.
 */
export type ListFilter = readonly [condition: string | ((param: string) => string), value: unknown];

/**
 * Reads one page of a list in the tenant and environment, newest first: the rows of its filters
 * in force, limit + 1 of them (see buildPage).
 */
export type PageReader<Row, Filters> = (
  db: Queryable,
  scope: TenantScope,
  filters: Filters,
  page: PageRequest,
) => Promise<Row[]>;

/**
 * The reader of a list's pages (see keysetPage). `select` is the store's constant `SELECT
 * columns FROM table`; `filters` names its filters in order, each in force adding `AND
 * condition` on the next parameter after the tenant and environment ($1, $2). Each combination
 * of filters in force is one constant text, served by the index the store names for it. `name`
 * prepares each variant (filters in force, first page or later) once per connection; `text`
 * reads every column as its text (./db/text-rows.ts).
 */
export function pageReader<Row extends QueryResultRow, Filters = Record<string, never>>(
  select: string,
  options: {
    filters?: (filters: Filters) => readonly ListFilter[];
    name?: string;
    text?: boolean;
  } = {},
): PageReader<Row, Filters> {
  const types = options.text ? { types: TEXT_TYPES } : {};
  return async (db, scope, filters, request) => {
    const values: unknown[] = [scope.tenantId, scope.environment];
    let conditions = '';
    let inForce = '';
    for (const [condition, value] of options.filters?.(filters) ?? []) {
      inForce += value === undefined ? '0' : '1';
      if (value === undefined) continue;
      values.push(value);
      const param = `$${values.length}`;
      conditions += ` AND ${typeof condition === 'string' ? `${condition} = ${param}` : condition(param)}`;
    }
    const page = keysetPage(values, request.after, request.limit + 1);
    const text = `${select} WHERE tenant_id = $1 AND environment = $2${conditions} ${page.after}
      ${page.orderBy}`;
    const { name } = options;
    const { rows } = await db.query<Row>(
      name === undefined
        ? { text, values: page.values, ...types }
        : { name: `${name}${inForce}${page.variant}`, text, values: page.values, ...types },
    );
    return rows;
  };
}
