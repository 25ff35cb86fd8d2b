// SQL of the billing run's batches: which tenants have something due on real time, the claim
// of a batch of due subscriptions or invoice work (locked, skipping rows another worker holds),
// and the run's lag for /metrics.
import type { Queryable } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import type { WorkRow } from './ledger-store.ts';
import type { SubscriptionRow } from './store.ts';

/** What a batch is claimed from: one tenant's rows on real time (null) or on one test clock. */
export interface BatchSource {
  scope: TenantScope;
  clockId: string | null;
}

/**
 * The tenants (and environments) with subscriptions or invoice work due on real time, in the
 * order of their earliest due row among the first `limit` due (indexes subscriptions_due and
 * subscription_invoices_work_due).
 */
export async function selectDueTenants(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<TenantScope[]> {
  const { rows } = await db.query<{ tenant_id: string; environment: 'live' | 'test' }>(
    `SELECT tenant_id, environment FROM (
       (SELECT tenant_id, environment, next_action_at AS due_at FROM subscriptions
         WHERE next_action_at <= $1 AND test_clock_id IS NULL ORDER BY next_action_at LIMIT $2)
       UNION ALL
       (SELECT tenant_id, environment, work_at FROM subscription_invoices
         WHERE work_at <= $1 AND test_clock_id IS NULL ORDER BY work_at LIMIT $2)) due
      GROUP BY tenant_id, environment ORDER BY min(due_at)`,
    [now, limit],
  );
  return rows.map((r) => ({ tenantId: r.tenant_id, environment: r.environment }));
}

// A row another worker has locked is skipped, not waited for: that worker is on it (and
// re-reads it under its lock), so each batch claims rows nobody else holds. Served by
// subscriptions_by_test_clock (tenant, environment, clock — null for real time — then time).
const CLAIM_SUBSCRIPTIONS = (clock: string) => `SELECT * FROM subscriptions
  WHERE tenant_id = $1 AND environment = $2 AND ${clock} AND next_action_at <= $3
  ORDER BY next_action_at LIMIT $4 FOR NO KEY UPDATE SKIP LOCKED`;
const CLAIM_WORK = (clock: string) => `SELECT tenant_id, environment, subscription_id,
    period_start, reason, invoice_id, work, work_at, after_issue
   FROM subscription_invoices
  WHERE tenant_id = $1 AND environment = $2 AND ${clock} AND work_at <= $3
  ORDER BY work_at LIMIT $4 FOR NO KEY UPDATE SKIP LOCKED`;

/** Locks up to `limit` rows due at `now` of the source that no other transaction holds. */
function claimer<Row extends object>(sql: (clock: string) => string) {
  return async (tx: Queryable, source: BatchSource, now: Date, limit: number): Promise<Row[]> => {
    const { scope, clockId } = source;
    const values = [scope.tenantId, scope.environment, now, limit];
    const { rows } =
      clockId === null
        ? await tx.query<Row & Record<string, unknown>>(sql('test_clock_id IS NULL'), values)
        : await tx.query<Row & Record<string, unknown>>(sql('test_clock_id = $5'), [
            ...values,
            clockId,
          ]);
    return rows;
  };
}

/** Subscriptions due at `now` (their next action), locked. */
export const claimDueSubscriptions = claimer<SubscriptionRow>(CLAIM_SUBSCRIPTIONS);

/** Rows of invoice work due at `now`, locked. */
export const claimDueWork = claimer<WorkRow>(CLAIM_WORK);

/** Of each of the subscriptions: its customer, and whether it e-mails its invoices (autoSend). */
export async function selectInvoicing(
  db: Queryable,
  scope: TenantScope,
  ids: readonly string[],
): Promise<Map<string, { customerId: string; autoSend: boolean }>> {
  const { rows } = await db.query<{ id: string; customer_id: string; auto_send: boolean }>(
    `SELECT id, customer_id, auto_send FROM subscriptions
      WHERE tenant_id = $1 AND environment = $2 AND id = ANY($3::text[])`,
    [scope.tenantId, scope.environment, ids],
  );
  return new Map(rows.map((r) => [r.id, { customerId: r.customer_id, autoSend: r.auto_send }]));
}

/**
 * The billing run's lag at `now`, in seconds: how long the oldest thing due has waited — a
 * subscription's next action, or an invoice's work (its issue after the grace period, its
 * e-mail). On real time against `now`; on a test clock against the clock's own time (its
 * subscriptions are due when the clock reaches them, whatever real time says). 0 when nothing
 * is due. Served by subscriptions_due, subscription_invoices_work_due and, per clock, the
 * *_by_test_clock indexes.
 */
export async function selectRunLag(db: Queryable, now: Date): Promise<number> {
  const { rows } = await db.query<{ lag: number | null }>(
    `SELECT greatest(0, extract(epoch FROM greatest(
         $1 - (SELECT min(next_action_at) FROM subscriptions
                WHERE next_action_at <= $1 AND test_clock_id IS NULL),
         $1 - (SELECT min(work_at) FROM subscription_invoices
                WHERE work_at <= $1 AND test_clock_id IS NULL),
         (SELECT max(c.frozen_time - due.at) FROM test_clocks c
            CROSS JOIN LATERAL (SELECT least(
              (SELECT min(s.next_action_at) FROM subscriptions s
                WHERE s.tenant_id = c.tenant_id AND s.environment = c.environment
                  AND s.test_clock_id = c.id AND s.next_action_at <= c.frozen_time),
              (SELECT min(w.work_at) FROM subscription_invoices w
                WHERE w.tenant_id = c.tenant_id AND w.environment = c.environment
                  AND w.test_clock_id = c.id AND w.work_at <= c.frozen_time)) AS at) due)
       )))::float8 AS lag`,
    [now],
  );
  return rows[0]?.lag ?? 0;
}
