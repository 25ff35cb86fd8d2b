-- Who made a stored idempotent result, so that it is replayed only to a caller that may see
-- it (API.md part C, "Secrets and isolation"): the same key, or a key of the same rotation
-- lineage holding the scope the operation requires. A result that carries a secret (a new
-- API key, a webhook signing secret) is stored sealed under a key derived from the calling
-- key's own secret, which the database never holds: only that key can open it again.

-- A key's lineage is the key its rotations started from (itself for a key never rotated).
ALTER TABLE api_keys ADD COLUMN lineage_id text COLLATE "C";
WITH RECURSIVE chain AS (
  SELECT tenant_id, id, id AS lineage_id FROM api_keys WHERE rotated_from IS NULL
  UNION ALL
  SELECT k.tenant_id, k.id, c.lineage_id
    FROM api_keys k JOIN chain c ON k.tenant_id = c.tenant_id AND k.rotated_from = c.id
)
UPDATE api_keys k SET lineage_id = chain.lineage_id
  FROM chain WHERE k.tenant_id = chain.tenant_id AND k.id = chain.id;
UPDATE api_keys SET lineage_id = id WHERE lineage_id IS NULL;
ALTER TABLE api_keys ALTER COLUMN lineage_id SET NOT NULL;

-- Results stored before this migration may hold a secret in clear: they go (a retry within
-- the 24 hours they had left runs again instead of being replayed).
DELETE FROM idempotency_keys;
ALTER TABLE idempotency_keys
  ADD COLUMN key_id text COLLATE "C" NOT NULL,
  ADD COLUMN lineage_id text COLLATE "C" NOT NULL,
  ADD COLUMN required_scope text,
  ADD COLUMN sealed boolean NOT NULL DEFAULT false;

DROP FUNCTION claim_idempotency_key(text, text, text, text, boolean, integer);
-- As in migration 0006: takes the key's transaction-scoped advisory lock (without waiting,
-- unless p_wait) and only then reads what a previous holder stored, in a fresh snapshot.
CREATE FUNCTION claim_idempotency_key(
  p_tenant_id text, p_environment text, p_key text, p_lock text, p_wait boolean,
  p_retention_hours integer)
RETURNS TABLE (locked boolean, fingerprint bytea, status_code integer, response_body text,
               key_id text, lineage_id text, required_scope text, sealed boolean,
               expired boolean)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF p_wait THEN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_lock, 0));
  ELSIF NOT pg_try_advisory_xact_lock(hashtextextended(p_lock, 0)) THEN
    RETURN QUERY SELECT false, NULL::bytea, NULL::integer, NULL::text, NULL::text, NULL::text,
                        NULL::text, NULL::boolean, NULL::boolean;
    RETURN;
  END IF;
  RETURN QUERY
    SELECT true, k.fingerprint, k.status_code, k.response_body, k.key_id::text,
           k.lineage_id::text, k.required_scope, k.sealed,
           k.created_at < now() - make_interval(hours => p_retention_hours)
      FROM idempotency_keys k
     WHERE k.tenant_id = p_tenant_id AND k.environment = p_environment AND k.key = p_key;
  IF NOT FOUND THEN
    RETURN QUERY SELECT true, NULL::bytea, NULL::integer, NULL::text, NULL::text, NULL::text,
                        NULL::text, NULL::boolean, NULL::boolean;
  END IF;
END
$$;
