-- The durable mail outbox (API.md part C, "Payments and receivables"): every e-mail is a row
-- written in the transaction of the request that asked for it, sent by the worker outside any
-- transaction, retried with back-off while the mail server refuses. Message-ID is fixed when
-- the row is written, so a message offered again after a crash (the server accepted it, the
-- worker died before recording that) is the same message to every mail system.
CREATE TABLE mail_outbox (
  tenant_id       text COLLATE "C" NOT NULL,
  environment     text NOT NULL CHECK (environment IN ('live', 'test')),
  id              text COLLATE "C" NOT NULL,
  -- What the message is about, for the hooks that record its outcome (e.g. invoice.sent).
  kind            text NOT NULL,
  subject_id      text COLLATE "C" NOT NULL,
  message_id      text NOT NULL,
  recipient       text NOT NULL,
  reply_to        text,
  subject         text NOT NULL,
  body            text NOT NULL,
  status          text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  last_error      text,
  -- Due time while queued; while a worker holds the lease, the lease's end.
  next_attempt_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  lease_token     text,
  -- When the last attempt began handing the message to the mail server: recorded (committed)
  -- before the hand-over, so a retry after a crash knows the server may have it already.
  handed_over_at  timestamptz(3),
  sent_at         timestamptz(3),
  created_at      timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id)
);
-- The worker's queue across tenants (like webhook_deliveries_due): queued rows only.
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE status = 'queued';
CREATE INDEX mail_outbox_by_subject ON mail_outbox (tenant_id, environment, subject_id);

-- What the invoice shows of its last e-mail (`email`).
ALTER TABLE invoices
  ADD COLUMN email_status text CHECK (email_status IN ('queued', 'sent', 'failed')),
  ADD COLUMN email_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN email_last_error text;
