-- Payments received against invoices (API.md part C, "Payments and receivables"). Each
-- payment is a row; the invoice keeps the running sum in amount_paid, which must always equal
-- the sum of its payments that are not void. A void payment (a bounced transfer) stays, with
-- its voided_at, so the invoice's history and the receivables of past days remain readable.
CREATE TABLE payments (
  tenant_id   text COLLATE "C" NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  id          text COLLATE "C" NOT NULL,
  invoice_id  text COLLATE "C" NOT NULL,
  -- The invoice's customer and currency, copied so a payment reads alone (no foreign key to
  -- customers: the invoice's own proves the customer, and a key here would lock its row).
  customer_id text COLLATE "C" NOT NULL,
  currency    text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  amount      bigint NOT NULL CHECK (amount > 0),
  method      text NOT NULL CHECK (method IN ('bank_transfer', 'card', 'cash', 'check',
                                              'direct_debit', 'other')),
  reference   text,
  status      text NOT NULL DEFAULT 'succeeded' CHECK (status IN ('succeeded', 'void')),
  -- When the money arrived, as the client says; created_at is when it was recorded here.
  received_at timestamptz(3) NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  voided_at   timestamptz(3),
  PRIMARY KEY (tenant_id, environment, id),
  FOREIGN KEY (tenant_id, environment, invoice_id)
    REFERENCES invoices (tenant_id, environment, id),
  CHECK ((status = 'void') = (voided_at IS NOT NULL)),
  CHECK (voided_at IS NULL OR voided_at >= created_at)
);
-- Keyset paging, one index per filter variant (none, invoice, customer; both filters use the
-- invoice's). The invoice variant also serves the invoice's own list of payments, its sum
-- under the invoice's lock, and the receivables report's payments as of a date.
CREATE INDEX payments_page ON payments (tenant_id, environment, created_at, id);
CREATE INDEX payments_by_invoice ON payments (tenant_id, environment, invoice_id, created_at, id);
CREATE INDEX payments_by_customer
  ON payments (tenant_id, environment, customer_id, created_at, id);

-- Invoices paid before payments were records (POST /pay set amount_paid alone) get the one
-- payment that stood for: the whole amount, method 'other', at the time it was paid. The id
-- takes the invoice's own time-ordered part, so it is unique and sorts by the invoice.
INSERT INTO payments (tenant_id, environment, id, invoice_id, customer_id, currency, amount,
                      method, received_at, created_at)
SELECT tenant_id, environment, 'pay_' || substr(id, 5), id, customer_id, currency, amount_paid,
       'other', coalesce(paid_at, updated_at), coalesce(paid_at, updated_at)
  FROM invoices
 WHERE amount_paid > 0;

-- amount_paid = Σ payments that are not void, checked when the transaction commits (the
-- payment and the invoice change in two statements, in either order). The other money
-- invariants (nothing negative, payments + credits ≤ total) are invoice_is_consistent's
-- (migration 0008): amount_remaining = total − amount_paid − amount_credited ≥ 0.
CREATE FUNCTION check_amount_paid_is_payments() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  invoice text;
  recorded bigint;
  received bigint;
BEGIN
  -- The trigger names the column that holds the invoice's id (TG_ARGV[0]): payments'
  -- invoice_id, invoices' own id. (Not TG_TABLE_NAME, which is a partition's name when the
  -- table is partitioned.)
  invoice := to_jsonb(NEW) ->> TG_ARGV[0];
  SELECT amount_paid INTO recorded FROM invoices
   WHERE tenant_id = NEW.tenant_id AND environment = NEW.environment AND id = invoice;
  SELECT coalesce(sum(amount), 0) INTO received FROM payments
   WHERE tenant_id = NEW.tenant_id AND environment = NEW.environment AND invoice_id = invoice
     AND status = 'succeeded';
  IF recorded IS DISTINCT FROM received THEN
    RAISE EXCEPTION 'invoice % violates check constraint "invoices_amount_paid_is_payments": '
      'amount_paid is % but its payments add up to %', invoice, recorded, received
      USING ERRCODE = 'check_violation', CONSTRAINT = 'invoices_amount_paid_is_payments';
  END IF;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER payments_add_up
  AFTER INSERT OR UPDATE ON payments
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION check_amount_paid_is_payments('invoice_id');
CREATE CONSTRAINT TRIGGER invoices_paid_by_payments
  AFTER UPDATE OF amount_paid ON invoices
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.amount_paid IS DISTINCT FROM NEW.amount_paid)
  EXECUTE FUNCTION check_amount_paid_is_payments('id');
CREATE CONSTRAINT TRIGGER invoices_created_paid_by_payments
  AFTER INSERT ON invoices
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.amount_paid <> 0)
  EXECUTE FUNCTION check_amount_paid_is_payments('id');
