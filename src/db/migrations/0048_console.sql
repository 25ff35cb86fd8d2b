-- The console's people (docs/console.md): users of one tenant, their one-time invitations,
-- their sessions, and the throttle of failed sign-ins. Tokens are never stored, only their
-- SHA-256: a copy of the database opens no session and accepts no invitation.
CREATE TABLE console_users (
  tenant_id     text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  id            text COLLATE "C" NOT NULL,
  -- Stored lower-cased: one person, one address, however it is typed.
  email         text COLLATE "C" NOT NULL,
  role          text NOT NULL CHECK (role IN ('admin', 'finance', 'viewer')),
  -- Argon2id (PHC string); null until the invitation is accepted.
  password_hash text,
  -- The language of the console for this user; null: the tenant's.
  locale        text,
  created_at    timestamptz(3) NOT NULL,
  removed_at    timestamptz(3),
  PRIMARY KEY (tenant_id, id)
);
-- Sign-in and invitations find a user by address; an address is taken once among the users
-- not removed.
CREATE UNIQUE INDEX console_users_by_email ON console_users (tenant_id, email)
  WHERE removed_at IS NULL;

CREATE TABLE console_invitations (
  tenant_id  text COLLATE "C" NOT NULL,
  id         text COLLATE "C" NOT NULL,
  user_id    text COLLATE "C" NOT NULL,
  token_hash bytea NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  used_at    timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, user_id) REFERENCES console_users (tenant_id, id)
);
-- The invitation page finds its invitation by the link's tenant and token.
CREATE UNIQUE INDEX console_invitations_by_token ON console_invitations (tenant_id, token_hash);
CREATE INDEX console_invitations_by_user ON console_invitations (tenant_id, user_id);

CREATE TABLE console_sessions (
  tenant_id    text COLLATE "C" NOT NULL,
  token_hash   bytea NOT NULL,
  user_id      text COLLATE "C" NOT NULL,
  -- The environment the console shows: one at a time, switched by the user.
  environment  text NOT NULL CHECK (environment IN ('live', 'test')),
  created_at   timestamptz(3) NOT NULL,
  last_seen_at timestamptz(3) NOT NULL,
  PRIMARY KEY (tenant_id, token_hash),
  FOREIGN KEY (tenant_id, user_id) REFERENCES console_users (tenant_id, id)
);
-- Removing a user ends its sessions.
CREATE INDEX console_sessions_by_user ON console_sessions (tenant_id, user_id);

-- Failed sign-ins in the current window, per (tenant, subject): a subject is `address:<ip>`
-- or `account:<e-mail>` (whether or not such a user exists, so the throttle tells nothing).
-- No foreign key: a mistyped tenant is counted too (under its own text).
CREATE TABLE console_sign_in_failures (
  tenant_id    text COLLATE "C" NOT NULL,
  subject      text COLLATE "C" NOT NULL,
  window_start timestamptz(3) NOT NULL,
  failures     integer NOT NULL,
  PRIMARY KEY (tenant_id, subject)
);

-- The console's customer search (src/console/customers-store.ts): a prefix of the name or of
-- the e-mail address, case-insensitive, each walked in order and stopped after one page.
CREATE INDEX customers_by_name_prefix
  ON customers (tenant_id, environment, lower(name) text_pattern_ops, id);
CREATE INDEX customers_by_email_prefix
  ON customers (tenant_id, environment, lower(email) text_pattern_ops, id);
-- The overview's revenue per month: the invoices issued in the last 12 months, read from the
-- index alone (currency and total included).
CREATE INDEX invoices_revenue_by_issue
  ON invoices (tenant_id, environment, issued_at) INCLUDE (currency, total, status)
  WHERE issued_at IS NOT NULL;
-- The overview's open and overdue receivables: the open invoices' remaining amounts by
-- currency and due date, from the index alone.
CREATE INDEX invoices_open_receivables
  ON invoices (tenant_id, environment, currency, due_date) INCLUDE (amount_remaining)
  WHERE status = 'open';
-- The overview's monthly recurring revenue: the subscriptions that bill (active, past due),
-- with their calendar, from the index alone; their items by primary key.
CREATE INDEX subscriptions_recurring
  ON subscriptions (tenant_id, environment, id) INCLUDE (currency, interval, interval_count)
  WHERE status IN ('active', 'past_due');
