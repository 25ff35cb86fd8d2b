-- The invariants of invoices and their lines, as one CHECK per table that calls a PL/pgSQL
-- function, instead of 23 CHECK constraints. Same rules, cheaper to enforce: PostgreSQL reads
-- a table's CHECK expressions back from their stored text and plans them again in every
-- statement that writes the table (for invoices, 13 KB of expression trees: ~40 µs of every
-- insert or update), while a PL/pgSQL function is compiled once per connection. Measured on
-- one row inserted per statement: 59 µs over no checks with the 23 constraints, 17 µs with the
-- function.
--
-- The function takes the columns it judges (and, for the large or optional ones, whether they
-- are set); NULL is never an answer, so a CHECK cannot pass by being unknown.

CREATE FUNCTION invoice_is_consistent(
  environment text, status text, currency text,
  tax_inclusive boolean, subtotal bigint, tax bigint, total_excluding_tax bigint, total bigint,
  amount_paid bigint, amount_credited bigint, out_of_band_amount bigint, amount_remaining bigint,
  days_until_due integer, has_number boolean, has_customer_snapshot boolean,
  is_issued boolean, is_paid boolean, is_voided boolean
) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN coalesce(
    environment IN ('live', 'test')
    AND status IN ('draft', 'open', 'paid', 'void', 'uncollectible')
    AND currency ~ '^[a-z]{3}$'
    AND subtotal >= 0 AND tax >= 0 AND total >= 0
    AND amount_paid >= 0 AND amount_credited >= 0 AND out_of_band_amount >= 0
    AND (days_until_due IS NULL OR days_until_due BETWEEN 0 AND 3650)
    AND total = subtotal + CASE WHEN tax_inclusive THEN 0 ELSE tax END
    AND total_excluding_tax = total - tax
    AND amount_remaining = total - amount_paid - amount_credited
    AND amount_remaining >= 0
    AND amount_credited + out_of_band_amount <= total
    -- A draft has no number, was not issued and has no frozen customer; nothing else is one.
    AND (status = 'draft') = NOT has_number
    AND (status = 'draft') = NOT is_issued
    AND (status = 'draft') = NOT has_customer_snapshot
    AND (status <> 'paid' OR (amount_remaining = 0 AND is_paid))
    AND (status <> 'void' OR is_voided),
    false);
END
$$;

ALTER TABLE invoices
  DROP CONSTRAINT invoices_environment_check,
  DROP CONSTRAINT invoices_status_check,
  DROP CONSTRAINT invoices_currency_check,
  DROP CONSTRAINT invoices_amount_paid_check,
  DROP CONSTRAINT invoices_amount_credited_check,
  DROP CONSTRAINT invoices_out_of_band_amount_check,
  DROP CONSTRAINT invoices_days_until_due_check,
  DROP CONSTRAINT invoices_check,
  DROP CONSTRAINT invoices_check1,
  DROP CONSTRAINT invoices_check2,
  DROP CONSTRAINT invoices_check3,
  DROP CONSTRAINT invoices_amount_remaining_check,
  DROP CONSTRAINT invoices_check4,
  DROP CONSTRAINT invoices_check5,
  DROP CONSTRAINT invoices_check6,
  DROP CONSTRAINT invoices_check7,
  DROP CONSTRAINT invoices_check8,
  DROP CONSTRAINT invoices_check9,
  ADD CONSTRAINT invoices_consistent CHECK (invoice_is_consistent(
    environment, status, currency,
    tax_inclusive, subtotal, tax, total_excluding_tax, total,
    amount_paid, amount_credited, out_of_band_amount, amount_remaining,
    days_until_due, number IS NOT NULL, customer_snapshot IS NOT NULL,
    issued_at IS NOT NULL, paid_at IS NOT NULL, voided_at IS NOT NULL));

-- numeric: the check itself must not overflow on a bad row, only refuse it.
CREATE FUNCTION invoice_line_is_consistent(quantity bigint, unit_amount bigint, amount bigint)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN coalesce(
    quantity >= 0 AND amount::numeric = quantity::numeric * unit_amount::numeric,
    false);
END
$$;

ALTER TABLE invoice_lines
  DROP CONSTRAINT invoice_lines_quantity_check,
  DROP CONSTRAINT invoice_lines_check,
  ADD CONSTRAINT invoice_lines_consistent
    CHECK (invoice_line_is_consistent(quantity, unit_amount, amount));
