// SQL of a subscription's standing: whether one of its invoices is overdue (`past_due`). The
// events that can change it mark the subscription in the statement that records them, so the
// run looks only at subscriptions whose invoices moved, never at all of them.
import type { OutboxFollower } from '../db/store.ts';
import type { Queryable } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import { dueRows, ofSubscription, type ClockTarget, type DueRow } from './ledger-store.ts';

/**
 * Follows the outbox (src/db/unit-of-work.ts): an invoice of a subscription that becomes
 * overdue, or stops being open, marks its subscription for the run. The tenant and environment
 * are the statement's constants $7 and $8 (see OutboxFollower).
 */
export const subscriptionStanding: OutboxFollower = {
  name: 'standing of the subscriptions whose invoices the events move',
  sql: `UPDATE subscriptions s SET standing_changed = true
          FROM queued q
         WHERE q.type IN ('invoice.overdue', 'invoice.paid', 'invoice.voided',
                          'invoice.marked_uncollectible')
           AND q.tenant_id = $7 AND q.environment = $8
           AND s.tenant_id = $7 AND s.environment = $8
           AND s.id = q.data -> 'object' ->> 'subscriptionId'
           AND s.status IN ('active', 'past_due')`,
};

/**
 * Subscriptions marked: of every tenant (index subscriptions_standing_changed; standing does
 * not depend on time, so the worker settles those on test clocks too), or one clock's.
 */
export function selectStandingChanged(
  db: Queryable,
  clock: ClockTarget,
  limit: number,
): Promise<DueRow[]> {
  const columns = 'tenant_id, environment, id, updated_at AS due_at';
  return dueRows<DueRow>(
    db,
    clock,
    `SELECT ${columns} FROM subscriptions WHERE standing_changed ORDER BY updated_at LIMIT $1`,
    `SELECT ${columns} FROM subscriptions
      WHERE tenant_id = $1 AND environment = $2 AND test_clock_id = $3 AND standing_changed
      ORDER BY updated_at LIMIT $4`,
    [limit],
  );
}

/** Whether an open invoice of the subscription is overdue. */
export async function hasOverdueInvoice(
  db: Queryable,
  scope: TenantScope,
  subscriptionId: string,
): Promise<boolean> {
  const { rows } = await ofSubscription(
    db,
    scope,
    subscriptionId,
    `SELECT 1 FROM invoices
      WHERE tenant_id = $1 AND environment = $2 AND subscription_id = $3
        AND status = 'open' AND overdue_at IS NOT NULL LIMIT 1`,
  );
  return rows.length > 0;
}
