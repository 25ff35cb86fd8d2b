-- Webhook endpoints, their deliveries (one per event and endpoint, written by recordEvent in
-- the transaction of the change: the durable outbox the worker drains) and every attempt.

CREATE TABLE webhook_endpoints (
  tenant_id       text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment     text NOT NULL CHECK (environment IN ('live', 'test')),
  id              text COLLATE "C" NOT NULL,
  url             text NOT NULL,
  description     text,
  enabled_events  text[] NOT NULL,
  -- whsec_…: kept in clear because every delivery is signed with it.
  secret          text NOT NULL,
  disabled        boolean NOT NULL DEFAULT false,
  disabled_reason text CHECK (disabled_reason IN ('requested', 'gone', 'failing')),
  -- Start of the current run of failed attempts (null after a success): 5 days of failure
  -- disable the endpoint.
  failing_since   timestamptz(3),
  created_at      timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id)
);
CREATE INDEX webhook_endpoints_page
  ON webhook_endpoints (tenant_id, environment, created_at DESC, id DESC);
-- The fan-out in recordEvent runs on every write: it probes this small partial index for the
-- enabled endpoints of one tenant and environment.
CREATE INDEX webhook_endpoints_enabled
  ON webhook_endpoints (tenant_id, environment) WHERE NOT disabled;

CREATE TABLE webhook_deliveries (
  tenant_id       text COLLATE "C" NOT NULL,
  environment     text NOT NULL CHECK (environment IN ('live', 'test')),
  id              text COLLATE "C" NOT NULL,
  endpoint_id     text COLLATE "C" NOT NULL,
  event_id        text COLLATE "C" NOT NULL,
  event_type      text NOT NULL,
  status          text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
  attempt_count   integer NOT NULL DEFAULT 0,
  -- Due time while pending; while a worker holds the lease, the lease's end (a worker that
  -- dies mid-attempt leaves the delivery to be claimed again after it).
  next_attempt_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  lease_token     text,
  created_at      timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id),
  FOREIGN KEY (tenant_id, environment, endpoint_id)
    REFERENCES webhook_endpoints (tenant_id, environment, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, event_id) REFERENCES events (tenant_id, id)
);
-- GET /v1/webhook-endpoints/{id}/deliveries, and cancelling an endpoint's pending deliveries.
CREATE INDEX webhook_deliveries_page
  ON webhook_deliveries (tenant_id, environment, endpoint_id, created_at DESC, id DESC);
-- The worker's queue: due deliveries of every tenant, oldest due first. It is the one query
-- that spans tenants by design (on Citus it runs on each shard); the partial index holds only
-- pending rows, so it stays small however long the history grows.
CREATE INDEX webhook_deliveries_due
  ON webhook_deliveries (next_attempt_at, tenant_id, environment, id) WHERE status = 'pending';

CREATE TABLE webhook_attempts (
  tenant_id       text COLLATE "C" NOT NULL,
  environment     text NOT NULL CHECK (environment IN ('live', 'test')),
  delivery_id     text COLLATE "C" NOT NULL,
  attempt         integer NOT NULL,
  attempted_at    timestamptz(3) NOT NULL,
  duration_ms     integer NOT NULL,
  response_status integer,
  -- What went wrong when there was no 2xx: timeout, connection error, refused address, status.
  error           text,
  -- At most 1 KB of the response body, for the endpoint's owner to debug with.
  response_body   text,
  PRIMARY KEY (tenant_id, environment, delivery_id, attempt),
  FOREIGN KEY (tenant_id, environment, delivery_id)
    REFERENCES webhook_deliveries (tenant_id, environment, id) ON DELETE CASCADE
);
