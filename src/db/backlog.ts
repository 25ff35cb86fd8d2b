// A queue's backlog as operators watch it (/metrics, src/http/metrics.ts): how many rows wait,
// how long the oldest has waited, how many failed for good. Read at every scrape, across
// tenants, through the queue's small partial index on (status, created_at) of its waiting and
// failed rows only (migration 0032), so the cost follows the backlog, never the history.
import type { Queryable } from './pool.ts';

export interface Backlog {
  /** Rows waiting, those being attempted now included. */
  waiting: number;
  /** Seconds since the oldest waiting row was created; 0 when none waits. */
  oldestWaitingSeconds: number;
  /** Rows that failed for good. */
  failed: number;
}

/** A queue: its table, the status of its waiting rows, and its statement's name. */
export interface Queue {
  table: string;
  waiting: string;
  /** Its name in CROSS_TENANT_STATEMENTS (src/db/sharding.ts). */
  marker: string;
}

/** The queue's backlog. Its table and status are constants of the queue's module. */
export async function readBacklog(db: Queryable, queue: Queue): Promise<Backlog> {
  const { table, waiting, marker } = queue;
  const { rows } = await db.query<Backlog>(
    `-- spans tenants: ${marker}
     SELECT count(*) FILTER (WHERE status = '${waiting}')::int AS "waiting",
            coalesce(extract(epoch FROM clock_timestamp()
                       - min(created_at) FILTER (WHERE status = '${waiting}')), 0)::float8
              AS "oldestWaitingSeconds",
            count(*) FILTER (WHERE status = 'failed')::int AS "failed"
       FROM ${table}
      WHERE status IN ('${waiting}', 'failed')`,
  );
  return rows[0]!;
}
