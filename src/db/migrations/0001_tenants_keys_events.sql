-- Tenants, API keys, idempotency records and the event outbox.
-- Every tenant-owned table leads with tenant_id (and environment where it applies), and every
-- primary key, unique constraint, foreign key and index includes it, so the data can be
-- sharded by tenant (Citus) later without a rewrite. Ids use the "C" collation so that
-- their byte order (time-ordered prefix) is their sort order.

CREATE TABLE tenants (
  tenant_id          text COLLATE "C" PRIMARY KEY,
  name               text NOT NULL,
  invoice_prefix     text NOT NULL DEFAULT 'INV-',
  credit_note_prefix text NOT NULL DEFAULT 'CN-',
  legal_name         text,
  tax_id             text,
  email              text,
  address_line1      text,
  address_line2      text,
  city               text,
  state              text,
  postal_code        text,
  country            text,
  created_at         timestamptz(3) NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE api_keys (
  tenant_id    text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  id           text COLLATE "C" NOT NULL,
  environment  text NOT NULL CHECK (environment IN ('live', 'test')),
  name         text,
  scopes       text[] NOT NULL,
  -- SHA-256 of the secret: secrets are 190 bits of randomness, so a fast hash is enough and
  -- the clear secret is never stored.
  secret_hash  bytea NOT NULL,
  redacted     text NOT NULL,
  rotated_from text COLLATE "C",
  created_at   timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  expires_at   timestamptz(3),
  revoked_at   timestamptz(3),
  last_used_at timestamptz(3),
  PRIMARY KEY (tenant_id, id)
);
-- Authentication looks a key up by its hash alone (the tenant is not known yet). Not unique:
-- a unique constraint would have to include tenant_id, and SHA-256 does not collide.
CREATE INDEX api_keys_by_secret_hash ON api_keys (secret_hash);
CREATE INDEX api_keys_page ON api_keys (tenant_id, environment, created_at DESC, id DESC);

-- Server-wide secrets (the cursor signing key), shared by every instance.
CREATE TABLE server_secrets (
  name  text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE idempotency_keys (
  tenant_id     text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment   text NOT NULL CHECK (environment IN ('live', 'test')),
  key           text COLLATE "C" NOT NULL,
  fingerprint   bytea NOT NULL,
  status_code   integer NOT NULL,
  response_body text NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, key)
);
-- The purge job deletes by age.
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

CREATE TABLE events (
  tenant_id   text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  id          text COLLATE "C" NOT NULL,
  type        text NOT NULL,
  object_id   text COLLATE "C" NOT NULL,
  data        jsonb NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX events_page ON events (tenant_id, environment, created_at DESC, id DESC);
CREATE INDEX events_by_type ON events (tenant_id, environment, type, created_at DESC, id DESC);
