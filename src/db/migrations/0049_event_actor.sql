-- Who made each event's change (docs/api.md, "Events"): { type: "user", id, email } for a
-- person in the console, { type: "api_key", id } for a key, { type: "system" } for the worker,
-- the billing run and the operator's CLI. Null on events recorded before actors were.
-- Nullable without a default: adding it rewrites nothing.
ALTER TABLE events ADD COLUMN actor jsonb;
