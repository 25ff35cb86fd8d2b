-- Invoices, events and stored Idempotency-Key results no longer refer to tenants by a foreign
-- key. Every insert into a table with one locked the tenant's row (FOR KEY SHARE), so all the
-- concurrent writes of a tenant queued on one row: a multixact and a WAL record on it for
-- nearly every create. What the keys guaranteed still holds: an invoice refers to its customer
-- (tenant_id included), which refers to its tenant; events and stored results are written only
-- by an authenticated API key, whose tenant its own foreign key proves; and tenants are never
-- deleted.
ALTER TABLE invoices DROP CONSTRAINT invoices_tenant_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_tenant_id_fkey;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_tenant_id_fkey;
