// SQL of the mail outbox. Requests write rows in their own transaction; the worker claims,
// and records outcomes, across tenants (index mail_outbox_due).
import type { Queryable } from '../db/pool.ts';
import type { Environment, TenantScope } from '../tenancy.ts';

export type MailStatus = 'queued' | 'sent' | 'failed';

export interface MailRow {
  tenant_id: string;
  environment: Environment;
  id: string;
  kind: string;
  subject_id: string;
  message_id: string;
  recipient: string;
  reply_to: string | null;
  subject: string;
  body: string;
  status: MailStatus;
  attempts: number;
  last_error: string | null;
  lease_token: string | null;
  handed_over_at: Date | null;
  sent_at: Date | null;
  created_at: Date;
}

export interface NewMail {
  id: string;
  kind: string;
  subjectId: string;
  messageId: string;
  to: string;
  replyTo: string | null;
  subject: string;
  body: string;
}

export async function insertMail(db: Queryable, scope: TenantScope, mail: NewMail): Promise<void> {
  await db.query(
    `INSERT INTO mail_outbox (tenant_id, environment, id, kind, subject_id, message_id,
                              recipient, reply_to, subject, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      scope.tenantId,
      scope.environment,
      mail.id,
      mail.kind,
      mail.subjectId,
      mail.messageId,
      mail.to,
      mail.replyTo,
      mail.subject,
      mail.body,
    ],
  );
}

/**
 * Claims due messages, oldest due first, for a lease: one short statement that commits the
 * attempt (attempts + 1, handed_over_at) before anything is handed to the mail server.
 */
export async function claimDueMail(
  db: Queryable,
  limit: number,
  leaseSeconds: number,
  token: string,
): Promise<MailRow[]> {
  const { rows } = await db.query<MailRow>(
    `WITH due AS (
       SELECT tenant_id, environment, id FROM mail_outbox
        WHERE status = 'queued' AND next_attempt_at <= clock_timestamp()
        ORDER BY next_attempt_at LIMIT $1
        FOR UPDATE SKIP LOCKED)
     UPDATE mail_outbox m
        SET attempts = m.attempts + 1, lease_token = $3, handed_over_at = clock_timestamp(),
            next_attempt_at = clock_timestamp() + make_interval(secs => $2)
       FROM due
      WHERE m.tenant_id = due.tenant_id AND m.environment = due.environment AND m.id = due.id
      RETURNING m.*`,
    [limit, leaseSeconds, token],
  );
  return rows;
}

/**
 * Records an attempt's outcome, if this worker still holds the lease (a worker whose lease
 * lapsed records nothing: the message was claimed again). Returns the row, or undefined.
 */
export async function recordMailOutcome(
  db: Queryable,
  mail: MailRow,
  outcome: { status: MailStatus; error: string | null; retryInSeconds: number },
): Promise<MailRow | undefined> {
  const { rows } = await db.query<MailRow>(
    `UPDATE mail_outbox
        SET status = $5, last_error = $6, lease_token = NULL,
            sent_at = CASE WHEN $5 = 'sent' THEN clock_timestamp() END,
            next_attempt_at = clock_timestamp() + make_interval(secs => $7)
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND lease_token = $4
      RETURNING *`,
    [
      mail.tenant_id,
      mail.environment,
      mail.id,
      mail.lease_token,
      outcome.status,
      outcome.error,
      outcome.retryInSeconds,
    ],
  );
  return rows[0];
}
