-- What subscriptions need of invoices, settings and customers: which subscription made an
-- invoice and why; each line's period, price and subscription item; the tenant's time zone and
-- grace period; a customer's own time zone.

-- An invoice made by a subscription names it and says why it was made; every other invoice is
-- `manual`. No foreign key to subscriptions: invoices outlive what made them, as they outlive
-- a deleted test clock's subscriptions.
ALTER TABLE invoices
  ADD COLUMN subscription_id text COLLATE "C",
  ADD COLUMN billing_reason text NOT NULL DEFAULT 'manual',
  ADD CONSTRAINT invoices_billing_reason CHECK (
    billing_reason IN ('manual', 'subscription_create', 'subscription_cycle',
                       'subscription_update', 'subscription_cancel')
    AND (subscription_id IS NULL) = (billing_reason = 'manual'));
-- GET /v1/invoices?subscriptionId=…, newest first; only subscription invoices are in it.
CREATE INDEX invoices_by_subscription
  ON invoices (tenant_id, environment, subscription_id, created_at, id)
  WHERE subscription_id IS NOT NULL;

-- A line made from a price (a subscription's) carries the price, the subscription item and the
-- period it bills: the instants [start, end) and the calendar dates the documents print (end
-- inclusive), computed once in the subscription's time zone, so that an issued document never
-- depends on a time zone read later. Its amount follows the price's billing scheme (tiers,
-- packages, decimal unit amounts, proration), so it is not always quantity × unit amount:
-- unit_amount is then NULL. A line without a price keeps the rule of every manual line.
ALTER TABLE invoice_lines
  ALTER COLUMN unit_amount DROP NOT NULL,
  ADD COLUMN price_id text COLLATE "C",
  ADD COLUMN subscription_item_id text COLLATE "C",
  ADD COLUMN period_start timestamptz(3),
  ADD COLUMN period_end timestamptz(3),
  ADD COLUMN period_start_date date,
  ADD COLUMN period_end_date date;

-- numeric: the check itself must not overflow on a bad row, only refuse it.
CREATE FUNCTION invoice_line_is_consistent(
  quantity bigint, unit_amount bigint, amount bigint, has_price boolean,
  has_subscription_item boolean, period_start timestamptz, period_end timestamptz,
  period_start_date date, period_end_date date
) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN coalesce(
    quantity >= 0
    -- A unit amount, when there is one, always gives the amount; only a priced line may
    -- have none.
    AND (unit_amount IS NOT NULL OR has_price)
    AND (unit_amount IS NULL OR amount::numeric = quantity::numeric * unit_amount::numeric)
    AND (has_price OR NOT has_subscription_item)
    -- A period is whole or absent, and runs forwards.
    AND (period_start IS NULL) = (period_end IS NULL)
    AND (period_start IS NULL) = (period_start_date IS NULL)
    AND (period_start IS NULL) = (period_end_date IS NULL)
    AND (period_start IS NULL OR (period_start < period_end
                                  AND period_start_date <= period_end_date)),
    false);
END
$$;

ALTER TABLE invoice_lines
  DROP CONSTRAINT invoice_lines_consistent,
  ADD CONSTRAINT invoice_lines_consistent CHECK (invoice_line_is_consistent(
    quantity, unit_amount, amount, price_id IS NOT NULL, subscription_item_id IS NOT NULL,
    period_start, period_end, period_start_date, period_end_date));
DROP FUNCTION invoice_line_is_consistent(bigint, bigint, bigint);

-- Period boundaries are computed on the local calendar of a time zone (an IANA name, checked by
-- the API): the tenant's, unless the customer has its own. A subscription's invoice stays a
-- draft for the grace period (at most a week) before it is issued.
ALTER TABLE tenant_settings
  ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC',
  ADD COLUMN invoice_grace_minutes integer NOT NULL DEFAULT 60
    CHECK (invoice_grace_minutes BETWEEN 0 AND 10080);
ALTER TABLE customers ADD COLUMN time_zone text;
