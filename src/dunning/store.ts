// SQL of payment reminders: the tenants' schedules, the steps due (table invoice_reminders,
// migration 0021), and what a reminder e-mail says. Every query but the schedules' takes the
// tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import { rowsByIds } from '../db/row-by-id.ts';
import type { Environment, TenantScope } from '../tenancy.ts';

/** The tenants that have a reminder schedule, and the schedule (days after the due date). */
export async function selectReminderSchedules(
  db: Queryable,
  only: TenantScope | null,
): Promise<{ tenant_id: string; environment: Environment; reminders: number[] }[]> {
  type Schedule = { tenant_id: string; environment: Environment; reminders: number[] };
  const { rows } =
    only === null
      ? await db.query<Schedule>(
          `-- spans tenants: reminder schedules
           SELECT tenant_id, environment, reminders FROM tenant_settings
            WHERE cardinality(reminders) > 0`,
        )
      : await db.query<Schedule>(
          `SELECT tenant_id, environment, reminders FROM tenant_settings
            WHERE tenant_id = $1 AND environment = $2 AND cardinality(reminders) > 0`,
          [only.tenantId, only.environment],
        );
  return rows;
}

/**
 * The next day (UTC) on which dunning has something to do for the customers of a test clock:
 * an open invoice turns overdue (the day after its due date), or a step of the tenant's
 * reminder schedule falls due that was not taken yet. Null: nothing ahead.
 */
export async function selectNextDunningDay(
  db: Queryable,
  scope: TenantScope,
  testClockId: string,
): Promise<string | null> {
  const { rows } = await db.query<{ day: string | null }>(
    `WITH open AS (
       SELECT i.id, i.due_date, i.overdue_at FROM invoices i
         JOIN customers c ON c.tenant_id = i.tenant_id AND c.environment = i.environment
                         AND c.id = i.customer_id
        WHERE i.tenant_id = $1 AND i.environment = $2 AND c.test_clock_id = $3
          AND i.status = 'open' AND i.due_date IS NOT NULL)
     SELECT to_char(least(
       (SELECT min(due_date) + 1 FROM open WHERE overdue_at IS NULL),
       (SELECT min(o.due_date + d) FROM open o
          CROSS JOIN unnest((SELECT reminders FROM tenant_settings
                              WHERE tenant_id = $1 AND environment = $2)) AS d
         WHERE NOT EXISTS (SELECT 1 FROM invoice_reminders r
                            WHERE r.tenant_id = $1 AND r.environment = $2
                              AND r.invoice_id = o.id AND r.days >= d))), 'YYYY-MM-DD') AS day`,
    [scope.tenantId, scope.environment, testClockId],
  );
  return rows[0]!.day;
}

/**
 * Takes up to `limit` reminder steps now due in the scope and returns them: for each open
 * invoice, the latest step of the schedule its days past due on `today` have reached, unless
 * that step or a later one was taken already (so a worker that was down does not send two
 * reminders at once). Inserting the step's row is the claim: with several workers, the
 * primary key lets one have each step, and the other's insert does nothing. The invoices are
 * the tenant's open ones past a due date (index invoices_receivable: not settled, due_date).
 */
export async function claimDueReminders(
  db: Queryable,
  scope: TenantScope,
  schedule: readonly number[],
  today: string,
  limit: number,
  testClockId: string | null,
): Promise<{ invoice_id: string; days: number }[]> {
  const { rows } = await db.query<{ invoice_id: string; days: number }>(
    `INSERT INTO invoice_reminders (tenant_id, environment, invoice_id, days, status)
     SELECT i.tenant_id, i.environment, i.id, s.step, 'queued'
       FROM invoices i
      CROSS JOIN LATERAL (SELECT max(d) AS step FROM unnest($3::int[]) AS d
                           WHERE d <= $4::date - i.due_date) s
      WHERE i.tenant_id = $1 AND i.environment = $2 AND i.status = 'open'
        AND (CASE i.status WHEN 'paid' THEN i.paid_at WHEN 'void' THEN i.voided_at END) IS NULL
        AND i.due_date <= $4::date - $5::int
        AND s.step IS NOT NULL
        -- On the test clock $7, or (NULL) on real time: the customer's clock decides.
        AND coalesce((SELECT c.test_clock_id FROM customers c
                       WHERE c.tenant_id = i.tenant_id AND c.environment = i.environment
                         AND c.id = i.customer_id), '') = coalesce($7::text, '')
        AND NOT EXISTS (SELECT 1 FROM invoice_reminders r
                         WHERE r.tenant_id = i.tenant_id AND r.environment = i.environment
                           AND r.invoice_id = i.id AND r.days >= s.step)
      ORDER BY i.due_date, i.id
      LIMIT $6
     ON CONFLICT DO NOTHING
     RETURNING invoice_id, days`,
    [scope.tenantId, scope.environment, schedule, today, Math.min(...schedule), limit, testClockId],
  );
  return rows;
}

export interface ReminderFacts {
  invoice_id: string;
  number: string;
  currency: string;
  amount_remaining: number;
  total: number;
  issue_date: string;
  due_date: string;
  customer_name: string | null;
  customer_email: string | null;
  /** The customer's language as it is now, else the tenant's. */
  customer_locale: string | null;
  tenant_locale: string | null;
  /** The seller the invoice was issued by. */
  seller_name: string | null;
  seller_email: string | null;
}

/** What the reminders of these invoices say, and to whom. */
export const selectReminderFacts = rowsByIds<ReminderFacts>(
  `SELECT i.id AS invoice_id, i.number, i.currency, i.amount_remaining, i.total,
          (i.issued_at AT TIME ZONE 'UTC')::date::text AS issue_date,
          i.due_date::text AS due_date, c.name AS customer_name, c.email AS customer_email,
          c.locale AS customer_locale, s.locale AS tenant_locale,
          i.seller_snapshot->>'name' AS seller_name, i.seller_snapshot->>'email' AS seller_email
     FROM invoices i
     JOIN customers c
       ON c.tenant_id = i.tenant_id AND c.environment = i.environment AND c.id = i.customer_id
     JOIN tenant_settings s ON s.tenant_id = i.tenant_id AND s.environment = i.environment`,
  { alias: 'i' },
);

/** The step's outcome: its message, or skipped (no address). */
export async function setReminderMail(
  db: Queryable,
  scope: TenantScope,
  step: { invoice_id: string; days: number },
  mailId: string | null,
): Promise<void> {
  await db.query(
    `UPDATE invoice_reminders SET mail_id = $5, status = CASE WHEN $5::text IS NULL THEN 'skipped' ELSE 'queued' END
      WHERE tenant_id = $1 AND environment = $2 AND invoice_id = $3 AND days = $4`,
    [scope.tenantId, scope.environment, step.invoice_id, step.days, mailId],
  );
}

/** What became of a reminder's message; the step it was for, or undefined. */
export async function recordReminderOutcome(
  db: Queryable,
  scope: TenantScope,
  mail: { subject_id: string; id: string; status: 'queued' | 'sent' | 'failed' },
): Promise<number | undefined> {
  const { rows } = await db.query<{ days: number }>(
    `UPDATE invoice_reminders
        SET status = $5, sent_at = CASE WHEN $5 = 'sent' THEN clock_timestamp() END
      WHERE tenant_id = $1 AND environment = $2 AND invoice_id = $3 AND mail_id = $4
      RETURNING days`,
    [scope.tenantId, scope.environment, mail.subject_id, mail.id, mail.status],
  );
  return rows[0]?.days;
}
