-- The paging indexes in ascending order. Lists are read newest first, which PostgreSQL does by
-- scanning these indexes backwards, as fast; but new rows (a later created_at, a later id) now
-- go to the right end of their tenant's range instead of the left. B-tree splits keep a page
-- full when the insertions run rightwards and leave both halves half empty when they run
-- leftwards: with the descending indexes, every paging index was twice its size (leaf pages
-- 51 % full against 90 % for the primary keys after 380,000 creates) and a create wrote ~1 KB
-- of WAL for page splits alone.
DROP INDEX api_keys_page;
CREATE INDEX api_keys_page ON api_keys (tenant_id, environment, created_at, id);
DROP INDEX events_page;
CREATE INDEX events_page ON events (tenant_id, environment, created_at, id);
DROP INDEX events_by_type;
CREATE INDEX events_by_type ON events (tenant_id, environment, type, created_at, id);
DROP INDEX customers_page;
CREATE INDEX customers_page ON customers (tenant_id, environment, created_at, id);
DROP INDEX customers_by_email;
CREATE INDEX customers_by_email
  ON customers (tenant_id, environment, lower(email), created_at, id);
DROP INDEX tax_rates_page;
CREATE INDEX tax_rates_page ON tax_rates (tenant_id, environment, created_at, id);
DROP INDEX tax_rates_by_active;
CREATE INDEX tax_rates_by_active
  ON tax_rates (tenant_id, environment, active, created_at, id);
DROP INDEX invoices_page;
CREATE INDEX invoices_page ON invoices (tenant_id, environment, created_at, id);
DROP INDEX invoices_by_customer;
CREATE INDEX invoices_by_customer
  ON invoices (tenant_id, environment, customer_id, created_at, id);
DROP INDEX invoices_by_status;
CREATE INDEX invoices_by_status
  ON invoices (tenant_id, environment, status, created_at, id);
DROP INDEX invoices_by_customer_status;
CREATE INDEX invoices_by_customer_status
  ON invoices (tenant_id, environment, customer_id, status, created_at, id);
DROP INDEX credit_notes_page;
CREATE INDEX credit_notes_page ON credit_notes (tenant_id, environment, created_at, id);
DROP INDEX credit_notes_by_invoice;
CREATE INDEX credit_notes_by_invoice
  ON credit_notes (tenant_id, environment, invoice_id, created_at, id);
DROP INDEX webhook_endpoints_page;
CREATE INDEX webhook_endpoints_page
  ON webhook_endpoints (tenant_id, environment, created_at, id);
DROP INDEX webhook_deliveries_page;
CREATE INDEX webhook_deliveries_page
  ON webhook_deliveries (tenant_id, environment, endpoint_id, created_at, id);
