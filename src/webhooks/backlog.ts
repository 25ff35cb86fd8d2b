// Webhook deliveries as operators watch them (/metrics, src/http/metrics.ts): how many wait
// (due or backing off), how long the oldest has waited, how many failed for good. Read at every
// scrape, across tenants, through the small partial index of migration 0032 (pending and
// failed rows only), so the cost follows the backlog, never the history of deliveries.
import type { Queryable } from '../db/pool.ts';

export interface DeliveryBacklog {
  /** Deliveries not yet made: due, backing off after a failed attempt, or being attempted. */
  pending: number;
  /** Seconds since the oldest pending delivery was created (its event); 0 when none waits. */
  oldestPendingSeconds: number;
  /** Deliveries that exhausted the retry schedule. */
  failed: number;
}

export async function deliveryBacklog(db: Queryable): Promise<DeliveryBacklog> {
  // Index webhook_deliveries_backlog (status, created_at) WHERE status IN ('pending', 'failed').
  const { rows } = await db.query<DeliveryBacklog>(
    `-- spans tenants: webhook backlog
     SELECT count(*) FILTER (WHERE status = 'pending')::int AS "pending",
            coalesce(extract(epoch FROM clock_timestamp()
                       - min(created_at) FILTER (WHERE status = 'pending')), 0)::float8
              AS "oldestPendingSeconds",
            count(*) FILTER (WHERE status = 'failed')::int AS "failed"
       FROM webhook_deliveries
      WHERE status IN ('pending', 'failed')`,
  );
  return rows[0]!;
}
