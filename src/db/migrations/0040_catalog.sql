-- The catalogue (API.md part D): products, and their prices that subscriptions bill. A
-- price's terms (currency, type, interval, scheme and amounts) never change after creation:
-- invoices and subscriptions refer to them, so a new amount is a new price. Only active,
-- nickname and metadata are ever updated.
CREATE TABLE products (
  tenant_id   text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  id          text COLLATE "C" NOT NULL,
  name        text NOT NULL,
  description text,
  -- UN/ECE Recommendation 20, as invoice lines carry it.
  unit_code   text NOT NULL CHECK (unit_code ~ '^[A-Z0-9]{2,3}$'),
  -- Ids of tax rates of this tenant and environment, checked when written (as invoices'
  -- default_tax_rates are): an array has no foreign key.
  tax_rates   text[] NOT NULL DEFAULT '{}',
  active      boolean NOT NULL DEFAULT true,
  metadata    jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id)
);
CREATE INDEX products_page ON products (tenant_id, environment, created_at, id);
CREATE INDEX products_by_active ON products (tenant_id, environment, active, created_at, id);

CREATE TABLE prices (
  tenant_id                text COLLATE "C" NOT NULL,
  environment              text NOT NULL CHECK (environment IN ('live', 'test')),
  id                       text COLLATE "C" NOT NULL,
  product_id               text COLLATE "C" NOT NULL,
  currency                 text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
  type                     text NOT NULL CHECK (type IN ('one_time', 'recurring')),
  recurring_interval       text CHECK (recurring_interval IN ('day', 'week', 'month', 'year')),
  recurring_interval_count integer CHECK (recurring_interval_count BETWEEN 1 AND 365),
  recurring_usage          text CHECK (recurring_usage IN ('licensed', 'metered')),
  -- The meter of a metered price (usage billing); null for licensed ones.
  meter_id                 text COLLATE "C",
  billing_scheme           text NOT NULL CHECK (billing_scheme IN ('per_unit', 'tiered', 'package')),
  -- per_unit and package: exactly one of the two (whole minor units, or a decimal of them).
  unit_amount              bigint CHECK (unit_amount >= 0),
  unit_amount_decimal      numeric(28, 12) CHECK (unit_amount_decimal >= 0),
  package_size             bigint CHECK (package_size >= 1),
  tiers_mode               text CHECK (tiers_mode IN ('graduated', 'volume')),
  -- [{ upTo, unitAmount, unitAmountDecimal, flatAmount }], decimals as strings.
  tiers                    jsonb,
  nickname                 text,
  active                   boolean NOT NULL DEFAULT true,
  metadata                 jsonb NOT NULL DEFAULT '{}',
  created_at               timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at               timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id),
  FOREIGN KEY (tenant_id, environment, product_id)
    REFERENCES products (tenant_id, environment, id),
  CHECK ((type = 'recurring') = (recurring_interval IS NOT NULL)),
  CHECK ((recurring_interval IS NULL) = (recurring_interval_count IS NULL)),
  CHECK ((recurring_interval IS NULL) = (recurring_usage IS NULL)),
  CHECK (meter_id IS NULL OR recurring_usage = 'metered'),
  CHECK ((billing_scheme = 'tiered') = (tiers IS NOT NULL AND tiers_mode IS NOT NULL)),
  CHECK ((billing_scheme = 'package') = (package_size IS NOT NULL)),
  CHECK (billing_scheme = 'tiered' OR
         (unit_amount IS NULL) <> (unit_amount_decimal IS NULL)),
  CHECK (billing_scheme <> 'tiered' OR
         (unit_amount IS NULL AND unit_amount_decimal IS NULL))
);
-- Keyset paging, one index per filter: none, active, product. With both filters the product's
-- index serves (a product has few prices; the active ones are filtered among them).
CREATE INDEX prices_page ON prices (tenant_id, environment, created_at, id);
CREATE INDEX prices_by_active ON prices (tenant_id, environment, active, created_at, id);
CREATE INDEX prices_by_product ON prices (tenant_id, environment, product_id, created_at, id);
