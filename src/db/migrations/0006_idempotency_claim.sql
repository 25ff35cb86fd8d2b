-- Claims an Idempotency-Key for the calling transaction in one round trip: takes the key's
-- transaction-scoped advisory lock (without waiting, unless p_wait), and only once it is held
-- reads what a previous holder stored. The read must start after the lock is taken: in READ
-- COMMITTED each statement of a VOLATILE PL/pgSQL function takes a fresh snapshot, so it sees
-- the record the previous holder committed just before releasing the lock. (A read in the same
-- statement as the lock would use that statement's snapshot, taken before the lock was held.)
CREATE FUNCTION claim_idempotency_key(
  p_tenant_id text, p_environment text, p_key text, p_lock text, p_wait boolean,
  p_retention_hours integer)
RETURNS TABLE (locked boolean, fingerprint bytea, status_code integer, response_body text,
               expired boolean)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF p_wait THEN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_lock, 0));
  ELSIF NOT pg_try_advisory_xact_lock(hashtextextended(p_lock, 0)) THEN
    RETURN QUERY SELECT false, NULL::bytea, NULL::integer, NULL::text, NULL::boolean;
    RETURN;
  END IF;
  RETURN QUERY
    SELECT true, k.fingerprint, k.status_code, k.response_body,
           k.created_at < now() - make_interval(hours => p_retention_hours)
      FROM idempotency_keys k
     WHERE k.tenant_id = p_tenant_id AND k.environment = p_environment AND k.key = p_key;
  IF NOT FOUND THEN
    RETURN QUERY SELECT true, NULL::bytea, NULL::integer, NULL::text, NULL::boolean;
  END IF;
END
$$;
