-- Customers. The primary key includes the environment so that foreign keys from invoices
-- (tenant_id, environment, customer_id) make cross-environment references impossible.
CREATE TABLE customers (
  tenant_id   text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  id          text COLLATE "C" NOT NULL,
  name        text,
  email       text,
  phone       text,
  address     jsonb,
  description text,
  metadata    jsonb NOT NULL DEFAULT '{}',
  tax_ids     jsonb NOT NULL DEFAULT '[]',
  tax_exempt  text NOT NULL DEFAULT 'none' CHECK (tax_exempt IN ('none', 'exempt', 'reverse')),
  created_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id)
);
-- Keyset paging: newest first, any depth at the same cost.
CREATE INDEX customers_page ON customers (tenant_id, environment, created_at DESC, id DESC);
-- The email filter (case-insensitive exact match), paged the same way.
CREATE INDEX customers_by_email ON customers (tenant_id, environment, lower(email), created_at DESC, id DESC);
