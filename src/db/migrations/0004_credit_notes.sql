-- Credit notes, their lines and the per-tenant credit note number counters.
-- A credit note credits part of an issued invoice; the invoice row (amount_credited,
-- out_of_band_amount) holds the running effect, each credit note the part it contributed, so
-- voiding one gives back exactly what it took. Money is bigint in the currency's minor unit,
-- with the invariants as CHECK constraints (the service keeps amounts within 2^53 − 1).

-- One row per tenant and environment, locked by the transaction that creates a credit note
-- (INSERT … ON CONFLICT DO UPDATE): a rolled-back creation rolls its increment back, so
-- numbers are gapless, and the next creation waits for the lock, so they are unique. Credit
-- notes are legal documents numbered in their own series, apart from invoices.
CREATE TABLE credit_note_number_counters (
  tenant_id   text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  last_number bigint NOT NULL CHECK (last_number >= 0),
  PRIMARY KEY (tenant_id, environment)
);

CREATE TABLE credit_notes (
  tenant_id           text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment         text NOT NULL CHECK (environment IN ('live', 'test')),
  id                  text COLLATE "C" NOT NULL,
  number              text COLLATE "C" NOT NULL,
  invoice_id          text COLLATE "C" NOT NULL,
  customer_id         text COLLATE "C" NOT NULL,
  status              text NOT NULL CHECK (status IN ('issued', 'void')),
  -- Always the invoice's currency (copied, so the credit note reads alone).
  currency            text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  reason              text CHECK (reason IN ('duplicate', 'fraudulent', 'order_change',
                                             'product_unsatisfactory')),
  memo                text,
  metadata            jsonb NOT NULL DEFAULT '{}',
  -- As on the invoice: true when its amounts include the tax (inclusive rates).
  tax_inclusive       boolean NOT NULL,
  subtotal            bigint NOT NULL CHECK (subtotal >= 0),
  tax                 bigint NOT NULL CHECK (tax >= 0),
  total_excluding_tax bigint NOT NULL CHECK (total_excluding_tax >= 0),
  total               bigint NOT NULL CHECK (total > 0),
  -- The part of the invoice's frozen breakdown this credit note credits, one entry per rate.
  tax_amounts         jsonb NOT NULL DEFAULT '[]',
  -- The effect on the invoice: lowered what was owed (credited) or was refunded outside the
  -- API (out of band, on a paid invoice). Voiding takes exactly these amounts back.
  credited_amount     bigint NOT NULL CHECK (credited_amount >= 0),
  out_of_band_amount  bigint NOT NULL CHECK (out_of_band_amount >= 0),
  created_at          timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  voided_at           timestamptz(3),
  PRIMARY KEY (tenant_id, environment, id),
  UNIQUE (tenant_id, environment, number),
  -- The target of the lines' foreign key, so a line's invoice is its credit note's invoice.
  UNIQUE (tenant_id, environment, id, invoice_id),
  FOREIGN KEY (tenant_id, environment, invoice_id)
    REFERENCES invoices (tenant_id, environment, id),
  FOREIGN KEY (tenant_id, environment, customer_id)
    REFERENCES customers (tenant_id, environment, id),
  CHECK (total = subtotal + CASE WHEN tax_inclusive THEN 0 ELSE tax END),
  CHECK (total_excluding_tax = total - tax),
  CHECK (credited_amount + out_of_band_amount = total),
  CHECK ((status = 'void') = (voided_at IS NOT NULL))
);
-- Keyset paging, one index per filter variant (none, invoice). The invoice variant also
-- serves the credit notes of one invoice read under its lock (caps, PDF).
CREATE INDEX credit_notes_page
  ON credit_notes (tenant_id, environment, created_at DESC, id DESC);
CREATE INDEX credit_notes_by_invoice
  ON credit_notes (tenant_id, environment, invoice_id, created_at DESC, id DESC);

CREATE TABLE credit_note_lines (
  tenant_id            text COLLATE "C" NOT NULL,
  environment          text NOT NULL,
  credit_note_id       text COLLATE "C" NOT NULL,
  id                   text COLLATE "C" NOT NULL,
  position             integer NOT NULL,
  invoice_id           text COLLATE "C" NOT NULL,
  -- The invoice line credited with its own tax rates; NULL: a free line, split over the
  -- invoice's whole breakdown like an amount.
  invoice_line_id      text COLLATE "C",
  description          text NOT NULL,
  -- Gross, like the credit note's amount: including the tax credited with it.
  amount               bigint NOT NULL CHECK (amount > 0),
  amount_excluding_tax bigint NOT NULL CHECK (amount_excluding_tax >= 0),
  tax                  bigint NOT NULL CHECK (tax >= 0),
  PRIMARY KEY (tenant_id, environment, credit_note_id, id),
  UNIQUE (tenant_id, environment, credit_note_id, position),
  FOREIGN KEY (tenant_id, environment, credit_note_id, invoice_id)
    REFERENCES credit_notes (tenant_id, environment, id, invoice_id),
  FOREIGN KEY (tenant_id, environment, invoice_id, invoice_line_id)
    REFERENCES invoice_lines (tenant_id, environment, invoice_id, id),
  CHECK (amount = amount_excluding_tax + tax)
);
-- What was credited against each line of an invoice (the per-line cap), and the foreign key
-- to invoice_lines.
CREATE INDEX credit_note_lines_by_invoice_line
  ON credit_note_lines (tenant_id, environment, invoice_id, invoice_line_id);
