-- The indexes of the receivables and tax reports (src/reports/store.ts).

-- Receivables as of a date: the issued invoices that were not yet settled then. An invoice
-- settles when it is paid (paid_at; cleared again if it reopens) or voided (voided_at), and
-- stays settled from then on, so the invoices that may be owed at the end of a day are those
-- whose settlement is null (open, uncollectible) or later than that day: two ranges of this
-- index. For today that is the open and uncollectible invoices plus today's settlements, not
-- every invoice ever paid. due_date also serves the reminders' search for a tenant's open
-- invoices past a due date.
CREATE INDEX invoices_receivable ON invoices (
  tenant_id, environment,
  (CASE status WHEN 'paid' THEN paid_at WHEN 'void' THEN voided_at END),
  due_date
) WHERE status <> 'draft';

-- The tax report: the invoices issued in a period (credit notes use credit_notes_page).
CREATE INDEX invoices_by_issue ON invoices (tenant_id, environment, issued_at)
  WHERE issued_at IS NOT NULL;
