-- Tax rates, invoices and their lines, and the per-tenant invoice number counters.
-- Money is bigint in the currency's minor unit; the service keeps every amount within
-- JavaScript's safe integers (2^53 − 1), far inside bigint. The money invariants are CHECK
-- constraints as well, so no code path can store an inconsistent invoice.

CREATE TABLE tax_rates (
  tenant_id    text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment  text NOT NULL CHECK (environment IN ('live', 'test')),
  id           text COLLATE "C" NOT NULL,
  display_name text NOT NULL,
  -- Exact: 0 ≤ p < 100 with four decimal places; never changes after creation.
  percentage   numeric(7, 4) NOT NULL CHECK (percentage >= 0 AND percentage < 100),
  inclusive    boolean NOT NULL,
  tax_type     text CHECK (tax_type IN ('vat', 'gst', 'sales_tax', 'other')),
  country      text,
  state        text,
  jurisdiction text,
  description  text,
  active       boolean NOT NULL DEFAULT true,
  metadata     jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at   timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id)
);
CREATE INDEX tax_rates_page ON tax_rates (tenant_id, environment, created_at DESC, id DESC);
CREATE INDEX tax_rates_by_active
  ON tax_rates (tenant_id, environment, active, created_at DESC, id DESC);

-- One row per tenant and environment, locked (UPDATE … RETURNING) by the transaction that
-- issues an invoice: numbers are then gapless, because a rolled-back issue also rolls back
-- its increment, and unique, because the next issuer waits for the lock. A sequence would
-- leave gaps, and gapless numbering is a legal requirement for invoices in many countries.
CREATE TABLE invoice_number_counters (
  tenant_id   text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  last_number bigint NOT NULL CHECK (last_number >= 0),
  PRIMARY KEY (tenant_id, environment)
);

CREATE TABLE invoices (
  tenant_id           text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment         text NOT NULL CHECK (environment IN ('live', 'test')),
  id                  text COLLATE "C" NOT NULL,
  customer_id         text COLLATE "C" NOT NULL,
  number              text COLLATE "C",
  status              text NOT NULL
                      CHECK (status IN ('draft', 'open', 'paid', 'void', 'uncollectible')),
  currency            text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  default_tax_rates   text[] NOT NULL DEFAULT '{}',
  -- True when line amounts include the tax (all the invoice's rates are inclusive).
  tax_inclusive       boolean NOT NULL DEFAULT false,
  subtotal            bigint NOT NULL DEFAULT 0,
  tax                 bigint NOT NULL DEFAULT 0,
  total_excluding_tax bigint NOT NULL DEFAULT 0,
  total               bigint NOT NULL DEFAULT 0,
  -- The tax breakdown (one entry per rate, with the rate's name and percentage copied), kept
  -- up to date on drafts and frozen by issuing: later changes to a rate never touch it.
  tax_amounts         jsonb NOT NULL DEFAULT '[]',
  amount_paid         bigint NOT NULL DEFAULT 0 CHECK (amount_paid >= 0),
  -- Credit notes on an open invoice lower what is owed...
  amount_credited     bigint NOT NULL DEFAULT 0 CHECK (amount_credited >= 0),
  -- ...and on a paid invoice record an amount refunded outside the API.
  out_of_band_amount  bigint NOT NULL DEFAULT 0 CHECK (out_of_band_amount >= 0),
  amount_remaining    bigint NOT NULL DEFAULT 0,
  -- A draft has either a due date or a number of days (the due date is then set on issue).
  due_date            date,
  days_until_due      integer CHECK (days_until_due BETWEEN 0 AND 3650),
  memo                text,
  metadata            jsonb NOT NULL DEFAULT '{}',
  -- The customer's name, e-mail, address, tax ids and tax status, frozen when issued.
  customer_snapshot   jsonb,
  issued_at           timestamptz(3),
  paid_at             timestamptz(3),
  voided_at           timestamptz(3),
  marked_uncollectible_at timestamptz(3),
  sent_at             timestamptz(3),
  created_at          timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at          timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id),
  UNIQUE (tenant_id, environment, number),
  FOREIGN KEY (tenant_id, environment, customer_id)
    REFERENCES customers (tenant_id, environment, id),
  CHECK (subtotal >= 0 AND tax >= 0 AND total >= 0),
  CHECK (total = subtotal + CASE WHEN tax_inclusive THEN 0 ELSE tax END),
  CHECK (total_excluding_tax = total - tax),
  CHECK (amount_remaining = total - amount_paid - amount_credited),
  CHECK (amount_remaining >= 0),
  CHECK (amount_credited + out_of_band_amount <= total),
  CHECK ((status = 'draft') = (number IS NULL)),
  CHECK ((status = 'draft') = (issued_at IS NULL)),
  CHECK ((status = 'draft') = (customer_snapshot IS NULL)),
  CHECK (status <> 'paid' OR (amount_remaining = 0 AND paid_at IS NOT NULL)),
  CHECK (status <> 'void' OR voided_at IS NOT NULL)
);
-- Keyset paging, one index per filter variant (none, customer, status, both).
CREATE INDEX invoices_page ON invoices (tenant_id, environment, created_at DESC, id DESC);
CREATE INDEX invoices_by_customer
  ON invoices (tenant_id, environment, customer_id, created_at DESC, id DESC);
CREATE INDEX invoices_by_status
  ON invoices (tenant_id, environment, status, created_at DESC, id DESC);
CREATE INDEX invoices_by_customer_status
  ON invoices (tenant_id, environment, customer_id, status, created_at DESC, id DESC);

CREATE TABLE invoice_lines (
  tenant_id   text COLLATE "C" NOT NULL,
  environment text NOT NULL,
  invoice_id  text COLLATE "C" NOT NULL,
  id          text COLLATE "C" NOT NULL,
  -- The line's place on the invoice (lines are shown in the order they were added).
  position    integer NOT NULL,
  description text NOT NULL,
  quantity    bigint NOT NULL CHECK (quantity >= 0),
  unit_amount bigint NOT NULL,
  amount      bigint NOT NULL,
  -- NULL: the invoice's default rates apply; an array (even empty) replaces them.
  tax_rates   text[],
  created_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, invoice_id, id),
  UNIQUE (tenant_id, environment, invoice_id, position),
  FOREIGN KEY (tenant_id, environment, invoice_id)
    REFERENCES invoices (tenant_id, environment, id) ON DELETE CASCADE,
  -- numeric: the check itself must not overflow on a bad row, only refuse it.
  CHECK (amount::numeric = quantity::numeric * unit_amount::numeric)
);
