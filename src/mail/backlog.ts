// The mail outbox as operators watch it (/metrics, src/http/metrics.ts): how many messages wait,
// how long the oldest has waited, how many failed for good. Read at every scrape, across
// tenants, through the small partial index of migration 0032 (queued and failed rows only), so
// the cost follows the backlog, never the history of sent mail.
import type { Queryable } from '../db/pool.ts';

export interface MailBacklog {
  /** Messages waiting to be sent, those being attempted now included. */
  queued: number;
  /** Seconds since the oldest queued message was queued; 0 when none waits. */
  oldestQueuedSeconds: number;
  /** Messages the mail server refused for good, or that ran out of attempts. */
  failed: number;
}

export async function mailBacklog(db: Queryable): Promise<MailBacklog> {
  // Index mail_outbox_backlog (status, created_at) WHERE status IN ('queued', 'failed').
  const { rows } = await db.query<MailBacklog>(
    `-- spans tenants: mail backlog
     SELECT count(*) FILTER (WHERE status = 'queued')::int AS "queued",
            coalesce(extract(epoch FROM clock_timestamp()
                       - min(created_at) FILTER (WHERE status = 'queued')), 0)::float8
              AS "oldestQueuedSeconds",
            count(*) FILTER (WHERE status = 'failed')::int AS "failed"
       FROM mail_outbox
      WHERE status IN ('queued', 'failed')`,
  );
  return rows[0]!;
}
