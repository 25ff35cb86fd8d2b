// SQL for what an invoice still owes: payments and credits against it, and the overdue scan.
// Every query but the scan across tenants takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import type { InvoiceStatus } from './state.ts';
import { LINES } from './lines-store.ts';
import { COLUMNS, type InvoiceRow, type InvoiceWithLines } from './store.ts';

/** Credits (or reverses credits) on an invoice; the status moves with what is still owed. */
export async function updateCredits(
  db: Queryable,
  scope: TenantScope,
  id: string,
  change: { credited: number; outOfBand: number; status: InvoiceStatus },
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices
        SET amount_credited = amount_credited + $4,
            out_of_band_amount = out_of_band_amount + $5,
            amount_remaining = amount_remaining - $4,
            paid_at = CASE WHEN $6 = 'paid' THEN coalesce(paid_at, clock_timestamp()) END,
            status = $6, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id, change.credited, change.outOfBand, change.status],
  );
  return rows[0]!;
}

/**
 * A payment (amount > 0) or its reversal (amount < 0) on an invoice; the status moves with
 * what is still owed, and paidAt with it.
 */
export async function updatePaid(
  db: Queryable,
  scope: TenantScope,
  id: string,
  change: { amount: number; status: InvoiceStatus },
): Promise<InvoiceWithLines> {
  // Run on a row the caller has locked (see LINES).
  const { rows } = await db.query<InvoiceWithLines>(
    `UPDATE invoices
        SET amount_paid = amount_paid + $4, amount_remaining = amount_remaining - $4,
            paid_at = CASE WHEN $5 = 'paid' THEN coalesce(paid_at, clock_timestamp()) END,
            status = $5, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${COLUMNS}, ${LINES} AS lines`,
    [scope.tenantId, scope.environment, id, change.amount, change.status],
  );
  return rows[0]!;
}

/**
 * The tenants and environments that have open invoices past their due date on `today` whose
 * invoice.overdue is still to be recorded (index invoices_overdue_due, across tenants).
 */
export async function selectScopesWithNewlyOverdue(
  db: Queryable,
  today: string,
  testClockId: string | null,
): Promise<TenantScope[]> {
  const { rows } = await db.query<TenantScope>(
    `-- spans tenants: newly overdue
     SELECT DISTINCT tenant_id AS "tenantId", environment FROM invoices i
      WHERE status = 'open' AND overdue_at IS NULL AND due_date < $1::date
        -- On the test clock $2, or (NULL) on real time: the customer's clock decides.
        AND coalesce((SELECT c.test_clock_id FROM customers c
                       WHERE c.tenant_id = i.tenant_id AND c.environment = i.environment
                         AND c.id = i.customer_id), '') = coalesce($2::text, '')`,
    [today, testClockId],
  );
  return rows;
}

/**
 * Marks up to `limit` open invoices of the scope that are past their due date on `today` as
 * recorded overdue, and returns them: the statement that finds them marks them, and skips
 * those another worker holds (FOR UPDATE SKIP LOCKED), so each is returned once, ever.
 */
export async function markOverdue(
  db: Queryable,
  scope: TenantScope,
  today: string,
  limit: number,
  testClockId: string | null,
): Promise<InvoiceRow[]> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices SET overdue_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND overdue_at IS NULL
        AND id IN (SELECT d.id FROM invoices d
                    WHERE d.tenant_id = $1 AND d.environment = $2 AND d.status = 'open'
                      AND d.overdue_at IS NULL AND d.due_date < $3::date
                      -- On the test clock $5, or (NULL) on real time: the customer's clock decides.
        AND coalesce((SELECT c.test_clock_id FROM customers c
                       WHERE c.tenant_id = d.tenant_id AND c.environment = d.environment
                         AND c.id = d.customer_id), '') = coalesce($5::text, '')
                    ORDER BY d.due_date LIMIT $4
                      FOR UPDATE SKIP LOCKED)
      RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, today, limit, testClockId],
  );
  return rows;
}
