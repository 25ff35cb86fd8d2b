-- A draft has no number, so the index that keeps numbers unique need not hold drafts: a partial
-- unique index instead of the constraint. Creating a draft (the hottest write) then updates
-- one index less, and the index can no longer be mistaken for a way to find an invoice by id
-- (a never-analysed table made the foreign-key check from invoice_lines plan it, and scan every
-- invoice of the tenant, as one of several indexes led by tenant_id, environment).
ALTER TABLE invoices DROP CONSTRAINT invoices_tenant_id_environment_number_key;
CREATE UNIQUE INDEX invoices_number ON invoices (tenant_id, environment, number)
  WHERE number IS NOT NULL;
