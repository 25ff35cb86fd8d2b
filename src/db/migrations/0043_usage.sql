-- Usage (docs/usage.md): meters, the usage events they measure, and hourly rollups that keep a
-- period's aggregation fast however many events it holds.
CREATE TABLE meters (
  tenant_id      text COLLATE "C" NOT NULL REFERENCES tenants (tenant_id),
  environment    text NOT NULL CHECK (environment IN ('live', 'test')),
  id             text COLLATE "C" NOT NULL,
  event_name     text COLLATE "C" NOT NULL,
  aggregation    text NOT NULL
                 CHECK (aggregation IN ('sum', 'count', 'unique_count', 'max', 'last')),
  -- The top-level property of an event's properties the meter reads; count reads none.
  value_property text,
  display_name   text NOT NULL,
  status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  created_at     timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  updated_at     timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id),
  CHECK ((aggregation = 'count') = (value_property IS NULL))
);
CREATE INDEX meters_page ON meters (tenant_id, environment, created_at, id);
-- Ingestion finds the meters of a batch's event names.
CREATE INDEX meters_by_event ON meters (tenant_id, environment, event_name);

-- Append-only: a row is never updated, and its key is what makes each event count once per
-- tenant, environment and id (INSERT … ON CONFLICT DO NOTHING). No foreign keys: each would
-- be a look-up and a row lock per event on the hottest insert path; the customer is checked
-- when the batch is read, and customers and tenants are never deleted.
CREATE TABLE usage_events (
  tenant_id    text COLLATE "C" NOT NULL,
  environment  text NOT NULL CHECK (environment IN ('live', 'test')),
  id           text COLLATE "C" NOT NULL,
  event_name   text COLLATE "C" NOT NULL,
  customer_id  text COLLATE "C" NOT NULL,
  occurred_at  timestamptz(3) NOT NULL,
  properties   jsonb NOT NULL,
  -- SHA-256 of the event's content (event name, customer, instant, properties) as canonical
  -- JSON: a retry with the same content is a duplicate, other content under the id is refused.
  content_hash bytea NOT NULL,
  received_at  timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, id)
);
-- A customer's events of one name in a time range: the partial hours at either end of a
-- period, and a new meter's backfill (all customers of the name).
CREATE INDEX usage_events_by_customer
  ON usage_events (tenant_id, environment, event_name, customer_id, occurred_at);

-- One row per meter, customer and UTC hour with what the hour's events add up to; for a
-- unique_count meter, one row per distinct value seen in the hour instead (unique_value, its
-- JSON text; '' on the other meters' rows). Written in the same statement as the events, and
-- for a new meter from the events already kept. No foreign key to meters (a look-up per row);
-- meters are never deleted.
CREATE TABLE usage_rollups (
  tenant_id    text COLLATE "C" NOT NULL,
  environment  text NOT NULL CHECK (environment IN ('live', 'test')),
  meter_id     text COLLATE "C" NOT NULL,
  customer_id  text COLLATE "C" NOT NULL,
  hour         timestamptz NOT NULL,
  unique_value text COLLATE "C" NOT NULL DEFAULT '',
  event_count  bigint NOT NULL,
  value_sum    numeric,
  value_max    numeric,
  -- The value of the hour's latest event (on a tie, any of them) and its instant.
  last_value   numeric,
  last_at      timestamptz(3),
  PRIMARY KEY (tenant_id, environment, meter_id, customer_id, hour, unique_value)
);

-- What an event's property is worth to a meter that sums, maximises or takes the last value:
-- a decimal ≥ 0 with up to 12 decimal places, as a JSON string or a JSON number (below 2^53,
-- where JSON parsers stay exact); null for anything else. src/usage/values.ts holds requests
-- to the same rule.
CREATE FUNCTION usage_decimal(value jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(value) = 'string'
         AND (value #>> '{}') ~ '^(0|[1-9][0-9]*)(\.[0-9]{1,12})?$'
      THEN (value #>> '{}')::numeric
    WHEN jsonb_typeof(value) = 'number'
         AND value::text ~ '^(0|[1-9][0-9]*)(\.[0-9]{1,12})?$'
         AND value::text::numeric < 9007199254740992
      THEN value::text::numeric
  END
$$;

-- What a unique_count meter counts: a JSON scalar (string, number, boolean) as its JSON text,
-- at most 200 characters; null for anything else.
CREATE FUNCTION usage_unique_value(value jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(value) IN ('string', 'number', 'boolean') AND length(value::text) <= 200
      THEN value::text
  END
$$;

-- An event as one meter measures it: no row when the meter does not count it (its property
-- missing or not a value the aggregation takes), else its decimal value (sum, max, last) and
-- its unique value (unique_count; '' for the others). Every query that aggregates (the rollup
-- of new events, a new meter's backfill, the partial hours of a period) measures through here.
CREATE FUNCTION usage_measure(p_aggregation text, p_properties jsonb, p_value_property text)
RETURNS TABLE (value numeric, unique_value text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT m.value, m.unique_value
    FROM (SELECT usage_decimal(p_properties -> p_value_property) AS value,
                 CASE WHEN p_aggregation = 'unique_count'
                      THEN usage_unique_value(p_properties -> p_value_property)
                      ELSE '' END AS unique_value) m
   WHERE CASE p_aggregation
           WHEN 'count' THEN true
           WHEN 'unique_count' THEN m.unique_value IS NOT NULL
           ELSE m.value IS NOT NULL
         END
$$;
