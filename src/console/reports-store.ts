// The reports page's receivables by age: each currency's sums in the receivables report's
// buckets, read from indexes alone rather than the report's invoice-by-invoice walk (which the
// CSV download still makes). Today, what an invoice owes is its amount_remaining: the payments
// and credit notes recorded so far are in it. Open invoices from invoices_open_receivables
// (index-only), uncollectible ones from a range of invoices_by_status.
import type { Queryable } from '../db/pool.ts';
import { allRows } from '../db/rows.ts';
import type { TenantScope } from '../tenancy.ts';

/** A currency's sums in the order of the report's buckets (AGING_BUCKETS), as text; null: none. */
export interface AgingRow {
  currency: string;
  invoices: number;
  buckets: (string | null)[];
  total: string;
}

/** Each currency's open and uncollectible invoices on `today` (UTC), by days past due. */
export async function selectAging(
  db: Queryable,
  scope: TenantScope,
  today: string,
): Promise<AgingRow[]> {
  return allRows(db, {
    name: 'console_aging',
    text: `SELECT currency, count(*)::int AS invoices,
                  ARRAY[sum(amount_remaining) FILTER (WHERE due_date IS NULL OR due_date >= $3::date),
                        sum(amount_remaining) FILTER (WHERE $3::date - due_date BETWEEN 1 AND 30),
                        sum(amount_remaining) FILTER (WHERE $3::date - due_date BETWEEN 31 AND 60),
                        sum(amount_remaining) FILTER (WHERE $3::date - due_date BETWEEN 61 AND 90),
                        sum(amount_remaining) FILTER (WHERE $3::date - due_date > 90)]::text[]
                    AS buckets,
                  sum(amount_remaining)::text AS total
             FROM (SELECT currency, due_date, amount_remaining FROM invoices
                    WHERE tenant_id = $1 AND environment = $2 AND status = 'open'
                   UNION ALL
                   SELECT currency, due_date, amount_remaining FROM invoices
                    WHERE tenant_id = $1 AND environment = $2 AND status = 'uncollectible') owed
            WHERE amount_remaining > 0
            GROUP BY currency ORDER BY currency`,
    values: [scope.tenantId, scope.environment, today],
  });
}
