// The backlog of webhook deliveries (/metrics): those not yet made (due, backing off after a
// failed attempt, or being attempted; oldest by their event), and those that exhausted the
// retry schedule.
import { readBacklog, type Backlog } from '../db/backlog.ts';
import type { Queryable } from '../db/pool.ts';

export function deliveryBacklog(db: Queryable): Promise<Backlog> {
  // Index webhook_deliveries_backlog (status, created_at) WHERE status IN ('pending', 'failed').
  return readBacklog(db, {
    table: 'webhook_deliveries',
    waiting: 'pending',
    marker: 'webhook backlog',
  });
}
