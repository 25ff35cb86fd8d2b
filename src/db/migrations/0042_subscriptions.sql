-- Subscriptions (API.md part D, docs/subscriptions.md): a customer's recurring items, the
-- calendar they are billed on, and the ledger that makes every period's invoice exactly once.

-- Test clocks: simulated time for customers of the test environment. A clock's time moves only
-- by `advance`; `advance_to` holds the target while the clock is advancing, so an advance cut
-- short by a crash goes on from where the clock stands when a worker next looks.
CREATE TABLE test_clocks (
  tenant_id   text COLLATE "C" NOT NULL,
  environment text NOT NULL CHECK (environment = 'test'),
  id          text COLLATE "C" NOT NULL,
  name        text,
  frozen_time timestamptz(3) NOT NULL,
  status      text NOT NULL DEFAULT 'ready' CHECK (status IN ('ready', 'advancing')),
  advance_to  timestamptz(3),
  created_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id),
  CHECK ((status = 'advancing') = (advance_to IS NOT NULL))
);
CREATE INDEX test_clocks_page ON test_clocks (tenant_id, environment, created_at DESC, id DESC);
-- Clocks whose advance is under way (a worker resumes one a crash cut short).
CREATE INDEX test_clocks_advancing ON test_clocks (updated_at) WHERE status = 'advancing';

-- A customer on a test clock lives on its time. No foreign key: deleting a clock returns its
-- customers to real time (the clock's id is cleared in the same transaction).
ALTER TABLE customers ADD COLUMN test_clock_id text COLLATE "C";
CREATE INDEX customers_by_test_clock ON customers (tenant_id, environment, test_clock_id)
  WHERE test_clock_id IS NOT NULL;

CREATE TABLE subscriptions (
  tenant_id            text COLLATE "C" NOT NULL,
  environment          text NOT NULL CHECK (environment IN ('live', 'test')),
  id                   text COLLATE "C" NOT NULL,
  customer_id          text COLLATE "C" NOT NULL,
  currency             text NOT NULL,
  status               text NOT NULL CHECK (status IN
                         ('scheduled', 'trialing', 'active', 'past_due', 'paused', 'canceled')),
  -- The calendar: every item's price recurs on this interval; boundaries are computed on this
  -- zone's local calendar from the anchor (src/subscriptions/calendar.ts).
  interval             text NOT NULL CHECK (interval IN ('day', 'week', 'month', 'year')),
  interval_count       integer NOT NULL CHECK (interval_count >= 1),
  time_zone            text NOT NULL,
  billing_cycle_anchor timestamptz(3) NOT NULL,
  start_at             timestamptz(3) NOT NULL,
  trial_start          timestamptz(3),
  trial_end            timestamptz(3),
  trial_will_end_sent  boolean NOT NULL DEFAULT false,
  current_period_start timestamptz(3),
  current_period_end   timestamptz(3),
  -- How a period shorter than an interval is billed (the first one, or the stub after a trial).
  proration_behavior   text NOT NULL CHECK (proration_behavior IN ('create_prorations', 'none')),
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  cancel_at            timestamptz(3),
  cancel_prorate       boolean NOT NULL DEFAULT false,
  cancel_invoice_now   boolean NOT NULL DEFAULT true,
  canceled_at          timestamptz(3),
  ended_at             timestamptz(3),
  pause_behavior       text CHECK (pause_behavior IN ('void', 'keep_as_draft', 'mark_uncollectible')),
  pause_resumes_at     timestamptz(3),
  latest_invoice_id    text COLLATE "C",
  -- The earliest instant at which the run has something to do for this subscription (a period
  -- boundary, a trial's end or its warning, a cancellation, a pause's end); null once canceled.
  next_action_at       timestamptz(3),
  test_clock_id        text COLLATE "C",
  days_until_due       integer,
  default_tax_rates    text[] NOT NULL DEFAULT '{}',
  auto_send            boolean NOT NULL DEFAULT false,
  description          text,
  metadata             jsonb NOT NULL DEFAULT '{}',
  created_at           timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at           timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id),
  FOREIGN KEY (tenant_id, environment, customer_id)
    REFERENCES customers (tenant_id, environment, id)
);
CREATE INDEX subscriptions_page ON subscriptions (tenant_id, environment, created_at DESC, id DESC);
CREATE INDEX subscriptions_by_customer
  ON subscriptions (tenant_id, environment, customer_id, created_at DESC, id DESC);
CREATE INDEX subscriptions_by_status
  ON subscriptions (tenant_id, environment, status, created_at DESC, id DESC);
-- The run's queue across tenants on real time: what falls due first is done first.
CREATE INDEX subscriptions_due ON subscriptions (next_action_at)
  WHERE next_action_at IS NOT NULL AND test_clock_id IS NULL;
-- A test clock's subscriptions, by when they fall due.
CREATE INDEX subscriptions_by_test_clock ON subscriptions (tenant_id, environment, test_clock_id, next_action_at)
  WHERE test_clock_id IS NOT NULL;

CREATE TABLE subscription_items (
  tenant_id       text COLLATE "C" NOT NULL,
  environment     text NOT NULL,
  subscription_id text COLLATE "C" NOT NULL,
  id              text COLLATE "C" NOT NULL,
  price_id        text COLLATE "C" NOT NULL,
  quantity        bigint NOT NULL CHECK (quantity >= 0),
  position        integer NOT NULL,
  -- What this item was billed for its current period, as a whole period's amount (0 when it
  -- was not billed: trial, free stub): the base of a proration credit (docs/subscriptions.md).
  billed_full     bigint NOT NULL DEFAULT 0,
  created_at      timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, subscription_id, id),
  FOREIGN KEY (tenant_id, environment, subscription_id)
    REFERENCES subscriptions (tenant_id, environment, id) ON DELETE CASCADE
);
CREATE INDEX subscription_items_by_price ON subscription_items (tenant_id, environment, price_id);

-- Proration lines waiting for the subscription's next invoice.
CREATE TABLE subscription_pending_lines (
  tenant_id            text COLLATE "C" NOT NULL,
  environment          text NOT NULL,
  subscription_id      text COLLATE "C" NOT NULL,
  id                   text COLLATE "C" NOT NULL,
  subscription_item_id text COLLATE "C" NOT NULL,
  price_id             text COLLATE "C" NOT NULL,
  description          text NOT NULL,
  quantity             bigint NOT NULL,
  amount               bigint NOT NULL,
  period_start         timestamptz(3) NOT NULL,
  period_end           timestamptz(3) NOT NULL,
  created_at           timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, subscription_id, id),
  FOREIGN KEY (tenant_id, environment, subscription_id)
    REFERENCES subscriptions (tenant_id, environment, id) ON DELETE CASCADE
);

-- The exactly-once ledger: one row per (subscription, period, reason), written in the
-- transaction that makes the invoice (or decides there is none), so a second worker, a retry
-- after kill -9 or a second advance of a test clock finds the row and makes nothing. For an
-- update the "period" is the instant of the change. `work` is what the run still has to do
-- with the invoice, from `work_at` on: issue the draft (after the tenant's grace minutes),
-- then at most one of send it (autoSend), void it or mark it uncollectible (a paused
-- subscription); each step is done in the transaction that records the next one.
CREATE TABLE subscription_invoices (
  tenant_id       text COLLATE "C" NOT NULL,
  environment     text NOT NULL,
  subscription_id text COLLATE "C" NOT NULL,
  period_start    timestamptz(3) NOT NULL,
  reason          text NOT NULL CHECK (reason IN
                    ('subscription_create', 'subscription_cycle', 'subscription_update', 'subscription_cancel')),
  invoice_id      text COLLATE "C",
  work            text CHECK (work IN ('issue', 'send', 'void', 'mark_uncollectible')),
  work_at         timestamptz(3),
  -- Made while the subscription was paused: what follows its issue (the pause's behaviour).
  after_issue     text CHECK (after_issue IN ('void', 'mark_uncollectible')),
  test_clock_id   text COLLATE "C",
  created_at      timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, subscription_id, period_start, reason),
  FOREIGN KEY (tenant_id, environment, subscription_id)
    REFERENCES subscriptions (tenant_id, environment, id) ON DELETE CASCADE,
  CHECK ((work IS NULL) = (work_at IS NULL))
);
-- The run's invoice work across tenants on real time, earliest first.
CREATE INDEX subscription_invoices_work_due ON subscription_invoices (work_at)
  WHERE work_at IS NOT NULL AND test_clock_id IS NULL;
CREATE INDEX subscription_invoices_by_test_clock
  ON subscription_invoices (tenant_id, environment, test_clock_id, work_at)
  WHERE work_at IS NOT NULL AND test_clock_id IS NOT NULL;

-- Set when an invoice of the subscription becomes overdue, or stops being open (paid, voided,
-- uncollectible), by the statement that records that event (src/subscriptions/standing-store.ts):
-- the run then sets `past_due` or `active` as the subscription's invoices now say.
ALTER TABLE subscriptions ADD COLUMN standing_changed boolean NOT NULL DEFAULT false;
CREATE INDEX subscriptions_standing_changed ON subscriptions (updated_at)
  WHERE standing_changed;

-- An invoice of a customer on a test clock keeps the clock's id: it is overdue when dunning
-- finds it so on the clock's date, not on today's.
ALTER TABLE invoices ADD COLUMN test_clock_id text COLLATE "C";
