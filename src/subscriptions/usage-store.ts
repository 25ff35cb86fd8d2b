// SQL of what usage ingestion asks of subscriptions: up to when a customer's usage is closed
// (its period's invoice issued), and the drafts still open to late usage.
import type { Queryable } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';

/**
 * For each customer among `customerIds` with a subscription: the latest boundary of each of its
 * subscriptions whose invoice is no longer waiting to be issued (usage before it was billed, or
 * found nothing to bill), the earliest of them over the customer's subscriptions.
 */
export async function selectUsageClosed(
  db: Queryable,
  scope: TenantScope,
  customerIds: readonly string[],
): Promise<{ customer_id: string; closed: Date }[]> {
  if (customerIds.length === 0) return [];
  const { rows } = await db.query<{ customer_id: string; closed: Date }>(
    `SELECT s.customer_id, min(c.closed) AS closed
       FROM subscriptions s
       CROSS JOIN LATERAL (
         SELECT max(l.period_start) AS closed FROM subscription_invoices l
          WHERE l.tenant_id = s.tenant_id AND l.environment = s.environment
            AND l.subscription_id = s.id AND l.work IS DISTINCT FROM 'issue') c
      WHERE s.tenant_id = $1 AND s.environment = $2 AND s.customer_id = ANY($3::text[])
        AND c.closed IS NOT NULL
      GROUP BY s.customer_id`,
    [scope.tenantId, scope.environment, customerIds],
  );
  return rows;
}

/** The drafts of the customers' subscriptions still waiting to be issued (open to late usage). */
export async function selectWaitingDrafts(
  db: Queryable,
  scope: TenantScope,
  customerIds: readonly string[],
): Promise<{ subscription_id: string; customer_id: string; invoice_id: string }[]> {
  if (customerIds.length === 0) return [];
  const { rows } = await db.query<{
    subscription_id: string;
    customer_id: string;
    invoice_id: string;
  }>(
    `SELECT l.subscription_id, s.customer_id, l.invoice_id
       FROM subscriptions s
       JOIN subscription_invoices l ON l.tenant_id = s.tenant_id
        AND l.environment = s.environment AND l.subscription_id = s.id
      WHERE s.tenant_id = $1 AND s.environment = $2 AND s.customer_id = ANY($3::text[])
        AND l.work = 'issue' AND l.invoice_id IS NOT NULL`,
    [scope.tenantId, scope.environment, customerIds],
  );
  return rows;
}
