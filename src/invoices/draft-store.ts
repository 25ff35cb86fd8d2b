// SQL for drafts: inserting one with its lines, editing its fields and prices, issuing it. Every
// query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import type { FrozenAtIssue } from './snapshots.ts';
import { lineArrays, linesFromArrays, type LineRow } from './lines-store.ts';
import { COLUMNS, type DraftFields, type InvoiceRow, type Totals } from './store.ts';

/** An invoice's totals, in the order both statements below takes them. */
function totalsValues(totals: Totals): unknown[] {
  return [
    totals.tax_inclusive,
    totals.subtotal,
    totals.tax,
    totals.total_excluding_tax,
    totals.total,
    JSON.stringify(totals.tax_amounts),
  ];
}

/** A draft's own fields and its totals, in the order both statements below take them. */
function pricedDraftValues(fields: DraftFields, totals: Totals): unknown[] {
  return [
    fields.default_tax_rates,
    fields.due_date,
    fields.days_until_due,
    fields.memo,
    JSON.stringify(fields.metadata),
    fields.supply_date,
    fields.service_period_start,
    fields.service_period_end,
    fields.buyer_reference,
    fields.purchase_order,
    ...totalsValues(totals),
  ];
}

/** Inserts a new draft, priced already, with its lines, in one statement; returns its row. */
export async function insertDraft(
  db: Queryable,
  scope: TenantScope,
  draft: Pick<InvoiceRow, 'id' | 'customer_id' | 'currency' | 'subscription_id' | 'billing_reason'>,
  fields: DraftFields,
  totals: Totals,
  lines: readonly Omit<LineRow, 'invoice_id'>[],
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>({
    name: 'insert_draft',
    text: INSERT_DRAFT_SQL,
    values: [
      scope.tenantId,
      scope.environment,
      draft.id,
      draft.customer_id,
      draft.currency,
      draft.subscription_id,
      draft.billing_reason,
      ...pricedDraftValues(fields, totals),
      ...lineArrays(lines),
    ],
  });
  return rows[0]!;
}

// The lines reference the invoice, inserted by the same statement: foreign keys are checked at
// its end, when both are there.
const INSERT_DRAFT_SQL = `WITH invoice AS (
    INSERT INTO invoices (tenant_id, environment, id, customer_id, currency, subscription_id,
                          billing_reason, status, default_tax_rates, due_date, days_until_due,
                          memo, metadata, supply_date, service_period_start,
                          service_period_end, buyer_reference, purchase_order, tax_inclusive,
                          subtotal, tax, total_excluding_tax, total, tax_amounts,
                          amount_remaining, test_clock_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, 'draft', $8, $9, $10, $11, $12, $13, $14, $15, $16,
            $17, $18, $19, $20, $21, $22, $23, $22,
            -- The customer's test clock: its invoices are overdue on the clock's date.
            (SELECT c.test_clock_id FROM customers c
              WHERE c.tenant_id = $1 AND c.environment = $2 AND c.id = $4))
    RETURNING ${COLUMNS}
  ),
  line AS (${linesFromArrays(24)})
  SELECT * FROM invoice`;

export async function updateDraft(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: DraftFields,
  totals: Totals,
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices
        SET default_tax_rates = $4, due_date = $5, days_until_due = $6, memo = $7, metadata = $8,
            supply_date = $9, service_period_start = $10, service_period_end = $11,
            buyer_reference = $12, purchase_order = $13,
            tax_inclusive = $14, subtotal = $15, tax = $16, total_excluding_tax = $17,
            total = $18, amount_remaining = $18 - amount_paid - amount_credited,
            tax_amounts = $19, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND status = 'draft'
      RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id, ...pricedDraftValues(fields, totals)],
  );
  return rows[0]!;
}

/**
 * Issues a draft: number, frozen customer and breakdown, due date; paid at once when 0. With
 * `emailQueued` (a batch that sends the invoice next), its e-mail is queued by this update too,
 * rather than by a second update of the row.
 */
export async function markIssued(
  db: Queryable,
  scope: TenantScope,
  id: string,
  issue: FrozenAtIssue & { number: string; paid: boolean; emailQueued: boolean },
  totals: Totals,
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices
        SET number = $4, due_date = $5, customer_snapshot = $6, issued_at = $7::timestamptz,
            status = CASE WHEN $8 THEN 'paid' ELSE 'open' END,
            paid_at = CASE WHEN $8 THEN $7::timestamptz END,
            supply_date = $9, buyer_reference = $10, seller_snapshot = $11,
            tax_inclusive = $12, subtotal = $13, tax = $14, total_excluding_tax = $15,
            total = $16, amount_remaining = $16 - amount_paid - amount_credited,
            tax_amounts = $17, updated_at = $7::timestamptz,
            email_status = CASE WHEN $18 THEN 'queued' ELSE email_status END,
            email_attempts = CASE WHEN $18 THEN 0 ELSE email_attempts END,
            email_last_error = CASE WHEN $18 THEN NULL ELSE email_last_error END
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND status = 'draft'
      RETURNING ${COLUMNS}`,
    [
      scope.tenantId,
      scope.environment,
      id,
      issue.number,
      issue.due_date,
      JSON.stringify(issue.customer_snapshot),
      issue.issued_at,
      issue.paid,
      issue.supply_date,
      issue.buyer_reference,
      JSON.stringify(issue.seller_snapshot),
      ...totalsValues(totals),
      issue.emailQueued,
    ],
  );
  return rows[0]!;
}
