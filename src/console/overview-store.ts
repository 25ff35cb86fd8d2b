// SQL of the console's overview: three aggregates, each over one index's range of the tenant
// and environment (read from the index alone where it can be), never a scan of a table.
import type { Queryable } from '../db/pool.ts';
import { allRows } from '../db/rows.ts';
import type { TenantScope } from '../tenancy.ts';

/** What the billing subscriptions' items bill a whole period, by currency and calendar. */
export async function selectRecurring(
  db: Queryable,
  scope: TenantScope,
): Promise<{ currency: string; interval: string; interval_count: number; amount: string }[]> {
  // subscriptions_recurring (index-only), then subscription_items by its primary key.
  return allRows(db, {
    name: 'console_recurring',
    text: `SELECT s.currency, s.interval, s.interval_count, sum(i.billed_full)::text AS amount
             FROM subscriptions s
             JOIN subscription_items i
               ON i.tenant_id = s.tenant_id AND i.environment = s.environment
              AND i.subscription_id = s.id
            WHERE s.tenant_id = $1 AND s.environment = $2 AND s.status IN ('active', 'past_due')
            GROUP BY s.currency, s.interval, s.interval_count`,
    values: [scope.tenantId, scope.environment],
  });
}

/** Open invoices' remaining amounts by currency, and how much of it is past due on `today`. */
export async function selectReceivables(
  db: Queryable,
  scope: TenantScope,
  today: string,
): Promise<{ currency: string; open: string; overdue: string; invoices: number }[]> {
  // invoices_open_receivables, index-only.
  return allRows(db, {
    name: 'console_receivables',
    text: `SELECT currency, sum(amount_remaining)::text AS open,
                  coalesce(sum(amount_remaining) FILTER (WHERE due_date < $3::date), 0)::text
                    AS overdue,
                  count(*)::int AS invoices
             FROM invoices
            WHERE tenant_id = $1 AND environment = $2 AND status = 'open'
            GROUP BY currency ORDER BY currency`,
    values: [scope.tenantId, scope.environment, today],
  });
}

/** What the invoices issued since `since` invoiced (void ones aside), per local month. */
export async function selectRevenueByMonth(
  db: Queryable,
  scope: TenantScope,
  since: Date,
  timeZone: string,
): Promise<{ month: string; currency: string; amount: string }[]> {
  // invoices_revenue_by_issue, index-only.
  return allRows(db, {
    name: 'console_revenue_by_month',
    text: `SELECT to_char(issued_at AT TIME ZONE $4, 'YYYY-MM') AS month, currency,
                  sum(total)::text AS amount
             FROM invoices
            WHERE tenant_id = $1 AND environment = $2 AND issued_at IS NOT NULL
              AND issued_at >= $3 AND status <> 'void'
            GROUP BY 1, 2 ORDER BY 1, 2`,
    values: [scope.tenantId, scope.environment, since, timeZone],
  });
}
