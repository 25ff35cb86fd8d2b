// The two shapes of a read: the first row or null, and every row. For stores whose queries do
// not fit rowById (src/db/row-by-id.ts): look-ups by another key, aggregates, statements that
// write and return.
import type { QueryResultRow } from 'pg';
import type { Queryable } from './pool.ts';

export interface Statement {
  /** Named: prepared once per connection (for what runs on every page or request). */
  name?: string;
  text: string;
  values: unknown[];
}

export async function firstRow<Row extends QueryResultRow>(
  db: Queryable,
  statement: Statement,
): Promise<Row | null> {
  return (await db.query<Row>(statement)).rows[0] ?? null;
}

export async function allRows<Row extends QueryResultRow>(
  db: Queryable,
  statement: Statement,
): Promise<Row[]> {
  return (await db.query<Row>(statement)).rows;
}
