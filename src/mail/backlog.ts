// The mail outbox's backlog (/metrics): messages queued (being attempted included), and those
// the mail server refused for good or that ran out of attempts.
import { readBacklog, type Backlog } from '../db/backlog.ts';
import type { Queryable } from '../db/pool.ts';

export function mailBacklog(db: Queryable): Promise<Backlog> {
  // Index mail_outbox_backlog (status, created_at) WHERE status IN ('queued', 'failed').
  return readBacklog(db, { table: 'mail_outbox', waiting: 'queued', marker: 'mail backlog' });
}
