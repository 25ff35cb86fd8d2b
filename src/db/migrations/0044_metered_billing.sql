-- Metered items billed in arrears (docs/subscriptions.md, "Metered items"). An item's usage is
-- billed at the price it has from `metered_from` (null: from the start of the current period);
-- a price change inside the period leaves the usage before it pending as a line of kind
-- `usage`, whose quantity and amount are measured when the next invoice is made (late events
-- still count), at the price it had.
ALTER TABLE subscription_items ADD COLUMN metered_from timestamptz(3);
ALTER TABLE subscription_pending_lines
  ADD COLUMN kind text NOT NULL DEFAULT 'proration' CHECK (kind IN ('proration', 'usage'));
