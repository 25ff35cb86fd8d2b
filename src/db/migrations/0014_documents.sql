-- Issued documents as records (API.md part C): tenant settings per environment, the fields an
-- EU VAT invoice and EN 16931 need, the seller frozen at issue, and the stored documents.

-- Settings belong to a tenant and an environment: a test key never changes what live documents
-- print. Both environments start from what the tenant had.
CREATE TABLE tenant_settings (
  tenant_id                  text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment                text NOT NULL CHECK (environment IN ('live', 'test')),
  legal_name                 text,
  address                    jsonb,
  tax_id                     text,
  company_registration       text,
  email                      text,
  phone                      text,
  iban                       text,
  bic                        text,
  account_name               text,
  payment_instructions       text,
  invoice_prefix             text NOT NULL DEFAULT 'INV-',
  credit_note_prefix         text NOT NULL DEFAULT 'CN-',
  locale                     text NOT NULL DEFAULT 'en',
  -- Days after the due date on which overdue invoices get a reminder, e.g. {3,14,30}.
  reminders                  integer[] NOT NULL DEFAULT '{}',
  electronic_address         jsonb,
  -- Payment terms printed when an invoice has no due date.
  payment_terms              text,
  updated_at                 timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment)
);
INSERT INTO tenant_settings (tenant_id, environment, legal_name, address, tax_id, email,
                             invoice_prefix, credit_note_prefix)
SELECT t.tenant_id, e.environment, t.legal_name,
       CASE WHEN num_nonnulls(t.address_line1, t.address_line2, t.city, t.state, t.postal_code,
                              t.country) = 0 THEN NULL
            ELSE jsonb_build_object('line1', t.address_line1, 'line2', t.address_line2,
                                    'city', t.city, 'state', t.state,
                                    'postalCode', t.postal_code, 'country', t.country) END,
       t.tax_id, t.email, t.invoice_prefix, t.credit_note_prefix
  FROM tenants t CROSS JOIN (VALUES ('live'), ('test')) AS e(environment);
ALTER TABLE tenants
  DROP COLUMN invoice_prefix, DROP COLUMN credit_note_prefix, DROP COLUMN legal_name,
  DROP COLUMN tax_id, DROP COLUMN email, DROP COLUMN address_line1, DROP COLUMN address_line2,
  DROP COLUMN city, DROP COLUMN state, DROP COLUMN postal_code, DROP COLUMN country;

ALTER TABLE customers
  ADD COLUMN locale text,
  ADD COLUMN buyer_reference text,
  ADD COLUMN electronic_address jsonb;

-- EN 16931 VAT category (S, Z, E, AE, K, G, O, L, M) and the legal text of an exemption.
ALTER TABLE tax_rates
  ADD COLUMN category text NOT NULL DEFAULT 'S'
    CHECK (category IN ('S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M')),
  ADD COLUMN exemption_reason text;

ALTER TABLE invoices
  ADD COLUMN supply_date date,
  ADD COLUMN service_period_start date,
  ADD COLUMN service_period_end date,
  ADD COLUMN buyer_reference text,
  ADD COLUMN purchase_order text,
  -- The seller as it was at issue (legal details, payment details, language): with the
  -- customer snapshot, everything the documents print.
  ADD COLUMN seller_snapshot jsonb,
  ADD CONSTRAINT invoices_service_period
    CHECK ((service_period_start IS NULL) = (service_period_end IS NULL)
           AND service_period_start <= service_period_end);

-- UN/ECE Recommendation 20 unit of measure; C62 is "one".
ALTER TABLE invoice_lines ADD COLUMN unit_code text NOT NULL DEFAULT 'C62';

-- Each credit-note line's part of each tax rate, for its document's lines.
ALTER TABLE credit_note_lines ADD COLUMN tax_amounts jsonb;
-- A credit note is a document of its own: the seller as it was when it was made, and its
-- e-mail (POST /v1/credit-notes/{id}/send), as for invoices.
ALTER TABLE credit_notes
  ADD COLUMN seller_snapshot jsonb,
  ADD COLUMN sent_at timestamptz(3),
  ADD COLUMN email_status text CHECK (email_status IN ('queued', 'sent', 'failed')),
  ADD COLUMN email_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN email_last_error text;

-- The documents of issued invoices and credit notes: rendered once from the data frozen at
-- issue, stored, and served byte-identical ever after. An e-invoice the data do not allow is
-- stored as what it lacks (`missing`), so the answer never changes either. PostgreSQL keeps
-- them (bytea, TOAST-compressed): a few tens of kilobytes each; docs/documents.md says what
-- changes at a larger scale.
CREATE TABLE documents (
  tenant_id    text COLLATE "C" NOT NULL,
  environment  text NOT NULL CHECK (environment IN ('live', 'test')),
  -- The invoice (inv_…) or credit note (cn_…) the document is of.
  subject_id   text COLLATE "C" NOT NULL,
  format       text NOT NULL CHECK (format IN ('pdf', 'ubl', 'cii')),
  content      bytea,
  missing      text[],
  sha256       bytea,
  created_at   timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, subject_id, format),
  CHECK ((content IS NULL) = (missing IS NOT NULL)),
  CHECK (format <> 'pdf' OR content IS NOT NULL)
);
