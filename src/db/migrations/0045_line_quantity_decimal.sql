-- A line made from a metered price bills what its meter measured: an exact decimal with up to
-- 12 places (12.5 GB, 0.000125 GB). `quantity_decimal` holds it when it is not whole; `quantity`
-- is then its ceiling, so that every reader of the whole quantity sees 0 only where nothing
-- was used. A whole quantity is only ever in `quantity` (one form for each value).
ALTER TABLE invoice_lines ADD COLUMN quantity_decimal numeric(30, 12);

-- Only a priced line measures a decimal quantity; it is above 0 and not whole, `quantity` is
-- its ceiling, and a unit amount gives the amount from it. numeric: the check itself must not
-- overflow on a bad row, only refuse it.
CREATE FUNCTION invoice_line_quantity_is_consistent(
  quantity bigint, quantity_decimal numeric, unit_amount bigint, amount bigint, has_price boolean
) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN coalesce(
    quantity_decimal IS NULL
    OR (has_price AND quantity_decimal > 0 AND quantity_decimal <> trunc(quantity_decimal)
        AND quantity::numeric = ceil(quantity_decimal)
        AND (unit_amount IS NULL OR amount::numeric = quantity_decimal * unit_amount::numeric)),
    false);
END
$$;

-- The rule of migration 0041 judges the unit amount of a whole quantity only; the one above
-- judges that of a decimal.
ALTER TABLE invoice_lines
  DROP CONSTRAINT invoice_lines_consistent,
  ADD CONSTRAINT invoice_lines_consistent CHECK (
    invoice_line_is_consistent(
      quantity, CASE WHEN quantity_decimal IS NULL THEN unit_amount END, amount,
      price_id IS NOT NULL, subscription_item_id IS NOT NULL, period_start, period_end,
      period_start_date, period_end_date)
    AND invoice_line_quantity_is_consistent(
      quantity, quantity_decimal, unit_amount, amount, price_id IS NOT NULL));
