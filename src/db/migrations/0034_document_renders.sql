-- Issued documents waiting to be rendered (docs/einvoices.md, "When documents are rendered").
-- Issuing an invoice or making a credit note answers once it is committed; its PDF and
-- e-invoices are rendered afterwards, from the data it froze, by the worker or by the first
-- reader, whichever comes first. A row is queued by the outcome statement of the unit of work
-- that recorded the invoice.issued or credit_note.created event (src/documents/renders-store.ts),
-- so the queue costs the issue no round trip, and removed in the transaction that stores the
-- documents. Renders of one subject are serialised by a transaction-scoped advisory lock: a
-- document is rendered once, however many workers and readers ask for it at the same time.
CREATE TABLE document_renders (
  tenant_id       text COLLATE "C" NOT NULL,
  environment     text NOT NULL CHECK (environment IN ('live', 'test')),
  subject_id      text COLLATE "C" NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('invoice', 'credit_note')),
  -- Due time; a worker that claims the row moves it past the render's lease (back-off on
  -- failures: a render that failed is tried again later, a reader renders at once anyway).
  next_attempt_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  attempts        integer NOT NULL DEFAULT 0,
  created_at      timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, subject_id)
);
-- The worker's queue across tenants (like mail_outbox_due).
CREATE INDEX document_renders_due ON document_renders (next_attempt_at);
