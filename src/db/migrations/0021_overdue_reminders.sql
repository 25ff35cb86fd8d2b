-- Overdue invoices and payment reminders (API.md part C): the worker emits invoice.overdue once
-- per invoice, and e-mails a reminder once per step of the tenant's schedule.

-- When the worker recorded invoice.overdue: set by the statement that finds the invoice, so
-- two workers never both emit it.
ALTER TABLE invoices ADD COLUMN overdue_at timestamptz(3);
-- The worker's search across tenants: open invoices whose invoice.overdue is still to come.
-- Past-due ones are few (they are marked within minutes), so the range below today is short.
CREATE INDEX invoices_overdue_due ON invoices (due_date)
  WHERE status = 'open' AND overdue_at IS NULL;

-- The tenant's reminder schedule is a setting (tenant_settings.reminders, migration 0014).

-- One row per invoice and step of the schedule: the key makes each step happen once, however
-- many workers run. `mail_id` is the outbox message; `status` follows it (skipped: the customer
-- had no e-mail address, and the step is not tried again).
CREATE TABLE invoice_reminders (
  tenant_id   text COLLATE "C" NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  invoice_id  text COLLATE "C" NOT NULL,
  days        integer NOT NULL CHECK (days >= 1),
  mail_id     text COLLATE "C",
  status      text NOT NULL CHECK (status IN ('queued', 'sent', 'failed', 'skipped')),
  created_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  sent_at     timestamptz(3),
  PRIMARY KEY (tenant_id, environment, invoice_id, days),
  FOREIGN KEY (tenant_id, environment, invoice_id)
    REFERENCES invoices (tenant_id, environment, id),
  CHECK (status <> 'skipped' OR mail_id IS NULL)
);
