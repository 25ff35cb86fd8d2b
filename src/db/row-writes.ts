// The writes of a store's own rows. The INSERT that makes a row and the UPDATE that changes it,
// for a table whose rows are made of columns set at creation only and changeable ones: the
// changeable columns are listed once, for both statements, so the two cannot drift apart.
// Table and column names are the store's constants, never input; every value is a parameter
// ($1, $2: the scope; $3: the id). And many rows written in one statement, as arrays in step.
import type { QueryResultRow } from 'pg';
import type { TenantScope } from '../tenancy.ts';
import type { Queryable } from './pool.ts';

export interface RowWrites<Row, Fixed, Fields> {
  /** Makes the row: its fixed columns, then its changeable ones. */
  insert(db: Queryable, scope: TenantScope, id: string, fields: Fixed & Fields): Promise<Row>;
  /** Sets the changeable columns (and updated_at) of the row; the row as it is after. */
  update(db: Queryable, scope: TenantScope, id: string, fields: Fields): Promise<Row>;
}

export function rowWrites<
  Row extends QueryResultRow,
  Fields extends object,
  Fixed extends object = Record<never, never>,
>(
  table: string,
  columns: {
    /** Set at creation only. */
    fixed?: readonly (keyof Fixed & string)[];
    changeable: readonly (keyof Fields & string)[];
    /**
     * The jsonb columns: sent as JSON text (node-postgres would send an array as a PostgreSQL
     * array); null stays SQL NULL.
     */
    json?: readonly (keyof (Fixed & Fields) & string)[];
    /** The RETURNING list. */
    returning: string;
  },
): RowWrites<Row, Fixed, Fields> {
  const { fixed = [], changeable, json = [], returning } = columns;
  const inserted: readonly string[] = [...fixed, ...changeable];
  const insertText = `INSERT INTO ${table} (tenant_id, environment, id, ${inserted.join(', ')})
     VALUES ($1, $2, $3, ${inserted.map((_, i) => `$${i + 4}`).join(', ')})
     RETURNING ${returning}`;
  const updateText = `UPDATE ${table}
        SET ${changeable.map((column, i) => `${column} = $${i + 4}`).join(', ')},
            updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${returning}`;
  const jsonColumns = new Set<string>(json);
  const value = (fields: object, name: string): unknown => {
    const v = (fields as Record<string, unknown>)[name];
    return jsonColumns.has(name) && v !== null ? JSON.stringify(v) : v;
  };
  const write =
    (text: string, names: readonly string[]) =>
    async (db: Queryable, scope: TenantScope, id: string, fields: object): Promise<Row> => {
      const values = names.map((name) => value(fields, name));
      const { rows } = await db.query<Row>(text, [
        scope.tenantId,
        scope.environment,
        id,
        ...values,
      ]);
      return rows[0]!;
    };
  return { insert: write(insertText, inserted), update: write(updateText, changeable) };
}

/**
 * Some rows' columns as arrays in step, in the order of `columns`: the values of a statement
 * that unnests them into one row each, so any number of rows is written in one round trip.
 */
export function arraysInStep<Row>(
  rows: readonly Row[],
  columns: readonly (keyof Row)[],
): unknown[] {
  return columns.map((column) => rows.map((row) => row[column]));
}
