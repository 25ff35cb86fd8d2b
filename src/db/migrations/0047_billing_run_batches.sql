-- The billing run claims its batches per tenant (src/subscriptions/due-store.ts): a tenant's
-- subscriptions and invoice work due on real time, earliest first, without scanning the other
-- tenants' due rows (subscriptions_due and subscription_invoices_work_due serve the search
-- across tenants; the *_by_test_clock indexes serve a clock's).
CREATE INDEX subscriptions_due_by_tenant ON subscriptions (tenant_id, environment, next_action_at)
  WHERE next_action_at IS NOT NULL AND test_clock_id IS NULL;
CREATE INDEX subscription_invoices_work_due_by_tenant
  ON subscription_invoices (tenant_id, environment, work_at)
  WHERE work_at IS NOT NULL AND test_clock_id IS NULL;
