// SQL of the receivables and tax reports: one statement each, over the tenant's invoices,
// payments and credit notes. Sums are exact (numeric in SQL, read as text, BigInt in JS).
import type { Queryable } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';

export interface ReceivableRow {
  currency: string;
  customer_id: string;
  customer_name: string | null;
  invoices: number;
  current: string;
  d1_30: string;
  d31_60: string;
  d61_90: string;
  over_90: string;
  total: string;
}

// What each invoice owed at the end of the day: its total less the payments and the credits
// recorded by then and not voided by then. An invoice settled (paid or voided) by then owed
// nothing and is not read: the CASE is the expression of the index invoices_receivable
// (migration 0022), whose two ranges (not settled; settled later) the planner scans. The
// payments and credit notes of each invoice come from payments_by_invoice and
// credit_notes_by_invoice, bounded by created_at.
const RECEIVABLES_SQL = `
  WITH owed AS MATERIALIZED (
    SELECT i.currency, i.customer_id, $4::date - i.due_date AS days_past_due,
           i.total
           - (SELECT coalesce(sum(p.amount), 0) FROM payments p
               WHERE p.tenant_id = i.tenant_id AND p.environment = i.environment
                 AND p.invoice_id = i.id AND p.created_at < $3
                 AND (p.voided_at IS NULL OR p.voided_at >= $3))
           - (SELECT coalesce(sum(c.credited_amount), 0) FROM credit_notes c
               WHERE c.tenant_id = i.tenant_id AND c.environment = i.environment
                 AND c.invoice_id = i.id AND c.created_at < $3
                 AND (c.voided_at IS NULL OR c.voided_at >= $3)) AS amount
      FROM invoices i
     WHERE i.tenant_id = $1 AND i.environment = $2 AND i.status <> 'draft'
       AND ((CASE i.status WHEN 'paid' THEN i.paid_at WHEN 'void' THEN i.voided_at END) IS NULL
            OR (CASE i.status WHEN 'paid' THEN i.paid_at WHEN 'void' THEN i.voided_at END) >= $3)
       AND i.issued_at < $3)
  SELECT o.currency, o.customer_id, cu.name AS customer_name, count(*)::int AS invoices,
         coalesce(sum(o.amount) FILTER (WHERE o.days_past_due IS NULL OR o.days_past_due <= 0),
                  0)::text AS current,
         coalesce(sum(o.amount) FILTER (WHERE o.days_past_due BETWEEN 1 AND 30), 0)::text AS d1_30,
         coalesce(sum(o.amount) FILTER (WHERE o.days_past_due BETWEEN 31 AND 60), 0)::text AS d31_60,
         coalesce(sum(o.amount) FILTER (WHERE o.days_past_due BETWEEN 61 AND 90), 0)::text AS d61_90,
         coalesce(sum(o.amount) FILTER (WHERE o.days_past_due > 90), 0)::text AS over_90,
         sum(o.amount)::text AS total
    FROM owed o
    JOIN customers cu ON cu.tenant_id = $1 AND cu.environment = $2 AND cu.id = o.customer_id
   WHERE o.amount > 0
   GROUP BY o.currency, o.customer_id, cu.name
   ORDER BY o.currency, cu.name, o.customer_id`;

/**
 * What customers owed at the end of `asOf` (UTC) on issued invoices, per currency and
 * customer, in buckets of days past due on that day. `end` is the first instant after it.
 */
export async function selectReceivables(
  db: Queryable,
  scope: TenantScope,
  asOf: string,
): Promise<ReceivableRow[]> {
  const { rows } = await db.query<ReceivableRow>({
    name: 'receivables_report',
    text: RECEIVABLES_SQL,
    values: [scope.tenantId, scope.environment, endOfDay(asOf), asOf],
  });
  return rows;
}

/** The first instant after the UTC day `date` (YYYY-MM-DD): PostgreSQL reads 24:00 as the next day's midnight. */
function endOfDay(date: string): string {
  return `${date}T24:00:00Z`;
}

export interface TaxRow {
  kind: 'rate' | 'total';
  currency: string;
  country: string | null;
  category: string | null;
  tax_rate_id: string | null;
  display_name: string | null;
  percentage: string | null;
  invoices: number;
  credit_notes: number;
  taxable_amount: string;
  tax: string;
  total_excluding_tax: string;
  total: string;
}

// The documents of the period: invoices by their issue date (index
// invoices_revenue_by_issue), less credit notes by theirs (credit_notes_page). Void documents
// are left out, and so are the credit notes of a void invoice: the pair is then as if never
// issued. Each document's frozen breakdown gives the rows per rate; the rate's country and
// name are its current ones. Category: the EN 16931 VAT category — reverse charge (AE) and
// exempt (E) customers by the invoice's frozen customer, otherwise the breakdown's or the
// rate's own category, where they carry one, else standard (S).
const TAX_SQL = `
  WITH documents AS (
    SELECT i.currency, 1 AS sign, i.tax_amounts, i.total_excluding_tax, i.tax, i.total,
           i.customer_snapshot->>'taxExempt' AS tax_exempt, true AS is_invoice
      FROM invoices i
     WHERE i.tenant_id = $1 AND i.environment = $2 AND i.status <> 'void'
       AND i.issued_at >= ($3::date)::timestamp AT TIME ZONE 'UTC'
       AND i.issued_at < ($4::date + 1)::timestamp AT TIME ZONE 'UTC'
    UNION ALL
    SELECT c.currency, -1, c.tax_amounts, c.total_excluding_tax, c.tax, c.total,
           i.customer_snapshot->>'taxExempt', false
      FROM credit_notes c
      JOIN invoices i
        ON i.tenant_id = c.tenant_id AND i.environment = c.environment AND i.id = c.invoice_id
     WHERE c.tenant_id = $1 AND c.environment = $2 AND c.status = 'issued'
       AND i.status <> 'void'
       AND c.created_at >= ($3::date)::timestamp AT TIME ZONE 'UTC'
       AND c.created_at < ($4::date + 1)::timestamp AT TIME ZONE 'UTC'),
  by_rate AS (
    SELECT d.currency, r.country,
           CASE d.tax_exempt WHEN 'reverse' THEN 'AE' WHEN 'exempt' THEN 'E'
                ELSE coalesce(t->>'category', r.category, 'S') END AS category,
           t->>'taxRateId' AS tax_rate_id, r.display_name, r.percentage::text AS percentage,
           count(*) FILTER (WHERE d.is_invoice)::int AS invoices,
           count(*) FILTER (WHERE NOT d.is_invoice)::int AS credit_notes,
           sum(d.sign * (t->>'taxableAmount')::bigint) AS taxable_amount,
           sum(d.sign * (t->>'amount')::bigint) AS tax
      FROM documents d
     CROSS JOIN LATERAL jsonb_array_elements(d.tax_amounts) t
      LEFT JOIN tax_rates r
        ON r.tenant_id = $1 AND r.environment = $2 AND r.id = t->>'taxRateId'
     GROUP BY 1, 2, 3, 4, 5, 6)
  SELECT 'rate' AS kind, currency, country, category, tax_rate_id, display_name, percentage,
         invoices, credit_notes, taxable_amount::text, tax::text, '0' AS total_excluding_tax,
         '0' AS total
    FROM by_rate
  UNION ALL
  SELECT 'total', currency, NULL, NULL, NULL, NULL, NULL,
         count(*) FILTER (WHERE is_invoice)::int, count(*) FILTER (WHERE NOT is_invoice)::int,
         '0', sum(sign * tax)::text, sum(sign * total_excluding_tax)::text,
         sum(sign * total)::text
    FROM documents
   GROUP BY currency`;

/** Per currency and rate, and per currency in all: the documents issued from `from` to `to`. */
export async function selectTaxReport(
  db: Queryable,
  scope: TenantScope,
  from: string,
  to: string,
): Promise<TaxRow[]> {
  const { rows } = await db.query<TaxRow>({
    name: 'tax_report',
    text: TAX_SQL,
    values: [scope.tenantId, scope.environment, from, to],
  });
  return rows;
}
