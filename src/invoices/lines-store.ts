// SQL for an invoice's lines. Every query takes the tenant and the environment; the invoice's
// statements (store.ts, draft-store.ts) read and insert lines through the fragments below.
import type { Queryable } from '../db/pool.ts';
import { rowsByIds } from '../db/row-by-id.ts';
import { arraysInStep } from '../db/row-writes.ts';
import type { TenantScope } from '../tenancy.ts';

export interface LineRow {
  invoice_id: string;
  id: string;
  position: number;
  description: string;
  quantity: number;
  /**
   * A priced line's exact quantity when it is not whole, as its shortest decimal text ("12.5");
   * `quantity` is then its ceiling (migration 0045).
   */
  quantity_decimal: string | null;
  /** null only on a priced line whose amount follows its price's scheme (migration 0041). */
  unit_amount: number | null;
  amount: number;
  tax_rates: string[] | null;
  unit_code: string;
  price_id: string | null;
  subscription_item_id: string | null;
  /** The period billed: instants as ISO 8601 UTC text, and the calendar dates printed. */
  period_start: string | null;
  period_end: string | null;
  period_start_date: string | null;
  period_end_date: string | null;
}

/**
 * A timestamp column as the API writes instants (ISO 8601, UTC, milliseconds): in JSON, which
 * has no timestamps, and wherever a row must read the same through a JSON and a plain statement.
 */
export const ISO = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// A decimal quantity as its shortest text ("12.5", where numeric(30, 12) reads
// "12.500000000000"), and as text in JSON, where a numeric would become a binary float.
const QUANTITY_DECIMAL = (column: string) => `trim_scale(${column})::text`;

// The invoice's lines in their order, as LineRows, for statements that read invoices with their
// lines in one query (a single statement sees one snapshot: no transaction around two reads).
// Not with FOR UPDATE: a statement that waited for the row's lock sees the row as its holder
// left it, but its subqueries see the snapshot from before the wait, and would miss the lines
// the holder changed. Statements run once the lock is held (an UPDATE after a FOR UPDATE in
// the same transaction) see both alike.
export const LINES = `(SELECT coalesce(json_agg(json_build_object(
    'invoice_id', l.invoice_id, 'id', l.id, 'position', l.position,
    'description', l.description, 'quantity', l.quantity, 'unit_amount', l.unit_amount,
    'amount', l.amount, 'tax_rates', l.tax_rates, 'unit_code', l.unit_code,
    'price_id', l.price_id, 'subscription_item_id', l.subscription_item_id,
    'period_start', ${ISO('l.period_start')}, 'period_end', ${ISO('l.period_end')},
    'period_start_date', l.period_start_date, 'period_end_date', l.period_end_date,
    'quantity_decimal', ${QUANTITY_DECIMAL('l.quantity_decimal')})
    ORDER BY l.position), '[]'::json)
   FROM invoice_lines l
  WHERE l.tenant_id = invoices.tenant_id AND l.environment = invoices.environment
    AND l.invoice_id = invoices.id)`;

/** The lines of these invoices, in their order on each invoice. */
export const selectLines = rowsByIds<LineRow>(
  `SELECT invoice_id, id, position, description, quantity, unit_amount, amount, tax_rates,
          unit_code, price_id, subscription_item_id, ${ISO('period_start')} AS period_start,
          ${ISO('period_end')} AS period_end, period_start_date::text AS period_start_date,
          period_end_date::text AS period_end_date,
          ${QUANTITY_DECIMAL('quantity_decimal')} AS quantity_decimal
     FROM invoice_lines`,
  { column: 'invoice_id', orderBy: 'invoice_id, position' },
);

// Lines from arrays unnested in step (tax_rates as JSON, since a line's rates are themselves an
// array, or null); `$first` is the number of the first array parameter. The invoice is
// (tenant $1, environment $2, id $3) in both statements that use it.
export function linesFromArrays(first: number): string {
  const p = (i: number) => `$${first + i}`;
  return `INSERT INTO invoice_lines (tenant_id, environment, invoice_id, id, position, description,
                                quantity, unit_amount, amount, tax_rates, unit_code, price_id,
                                subscription_item_id, period_start, period_end,
                                period_start_date, period_end_date, quantity_decimal)
     SELECT $1, $2, $3, l.id, l.position, l.description, l.quantity, l.unit_amount, l.amount,
            CASE WHEN l.tax_rates = 'null' THEN NULL
                 ELSE ARRAY(SELECT jsonb_array_elements_text(l.tax_rates)) END, l.unit_code,
            l.price_id, l.subscription_item_id, l.period_start, l.period_end,
            l.period_start_date, l.period_end_date, l.quantity_decimal
       FROM unnest(${p(0)}::text[], ${p(1)}::int[], ${p(2)}::text[], ${p(3)}::bigint[],
                   ${p(4)}::bigint[], ${p(5)}::bigint[], ${p(6)}::jsonb[], ${p(7)}::text[],
                   ${p(8)}::text[], ${p(9)}::text[], ${p(10)}::timestamptz[],
                   ${p(11)}::timestamptz[], ${p(12)}::date[], ${p(13)}::date[],
                   ${p(14)}::numeric[])
            AS l(id, position, description, quantity, unit_amount, amount, tax_rates, unit_code,
                 price_id, subscription_item_id, period_start, period_end, period_start_date,
                 period_end_date, quantity_decimal)`;
}

export function lineArrays(lines: readonly Omit<LineRow, 'invoice_id'>[]): unknown[] {
  return [
    ...arraysInStep(lines, ['id', 'position', 'description', 'quantity', 'unit_amount', 'amount']),
    lines.map((l) => JSON.stringify(l.tax_rates)),
    ...arraysInStep(lines, [
      'unit_code',
      'price_id',
      'subscription_item_id',
      'period_start',
      'period_end',
      'period_start_date',
      'period_end_date',
      'quantity_decimal',
    ]),
  ];
}

const INSERT_LINES_SQL = linesFromArrays(4);

export async function insertLines(
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
  lines: readonly Omit<LineRow, 'invoice_id'>[],
): Promise<void> {
  if (lines.length === 0) return;
  // One statement for every line.
  await db.query({
    name: 'insert_invoice_lines',
    text: INSERT_LINES_SQL,
    values: [scope.tenantId, scope.environment, invoiceId, ...lineArrays(lines)],
  });
}

export async function deleteLine(
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
  lineId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `DELETE FROM invoice_lines
      WHERE tenant_id = $1 AND environment = $2 AND invoice_id = $3 AND id = $4`,
    [scope.tenantId, scope.environment, invoiceId, lineId],
  );
  return rowCount === 1;
}

export async function deleteAllLines(
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
): Promise<void> {
  await db.query(
    `DELETE FROM invoice_lines WHERE tenant_id = $1 AND environment = $2 AND invoice_id = $3`,
    [scope.tenantId, scope.environment, invoiceId],
  );
}

/** The line of a subscription's invoice that billed an item at an instant (index by subscription). */
export async function selectBilledLine(
  db: Queryable,
  scope: TenantScope,
  subscriptionId: string,
  subscriptionItemId: string,
  at: Date,
): Promise<{ invoice_id: string; id: string; status: string } | undefined> {
  const { rows } = await db.query<{ invoice_id: string; id: string; status: string }>(
    `SELECT l.invoice_id, l.id, i.status FROM invoices i
       JOIN invoice_lines l ON l.tenant_id = i.tenant_id AND l.environment = i.environment
                           AND l.invoice_id = i.id
      WHERE i.tenant_id = $1 AND i.environment = $2 AND i.subscription_id = $3
        AND l.subscription_item_id = $4 AND l.amount > 0
        AND l.period_start <= $5 AND $5 < l.period_end AND i.status <> 'void'
      ORDER BY i.created_at DESC, l.position LIMIT 1`,
    [scope.tenantId, scope.environment, subscriptionId, subscriptionItemId, at],
  );
  return rows[0];
}

/** Sets the measured quantity and amount of a draft's priced lines (late usage). */
export async function updateLineQuantities(
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
  updates: readonly {
    id: string;
    quantity: number;
    quantityDecimal: string | null;
    amount: number;
  }[],
): Promise<void> {
  await db.query(
    `UPDATE invoice_lines l SET quantity = u.quantity, quantity_decimal = u.quantity_decimal,
            amount = u.amount
       FROM unnest($4::text[], $5::bigint[], $6::numeric[], $7::bigint[])
            AS u(id, quantity, quantity_decimal, amount)
      WHERE l.tenant_id = $1 AND l.environment = $2 AND l.invoice_id = $3 AND l.id = u.id
        AND l.price_id IS NOT NULL`,
    [
      scope.tenantId,
      scope.environment,
      invoiceId,
      updates.map((u) => u.id),
      updates.map((u) => u.quantity),
      updates.map((u) => u.quantityDecimal),
      updates.map((u) => u.amount),
    ],
  );
}
