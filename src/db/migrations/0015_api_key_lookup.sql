-- Authentication finds a key by the hash of its secret before it knows the key's tenant. On a
-- database sharded by tenant (Citus), that look-up in api_keys would ask every shard. This
-- table answers it instead: a reference table (src/db/sharding.ts), copied to every node, with
-- no tenant in its key and no foreign key to api_keys; the key itself is then read by its
-- primary key from its tenant's shard. Its row is written in the transaction that creates the
-- key, and keys are never deleted, so the two cannot disagree.
CREATE TABLE api_key_lookup (
  -- SHA-256 of the secret, as in api_keys; unique because SHA-256 does not collide.
  secret_hash bytea PRIMARY KEY,
  tenant_id   text COLLATE "C" NOT NULL,
  key_id      text COLLATE "C" NOT NULL
);
INSERT INTO api_key_lookup (secret_hash, tenant_id, key_id)
  SELECT secret_hash, tenant_id, id FROM api_keys;
-- The look-up by hash alone in api_keys is gone, and with it the one index of a tenant table
-- that every authentication would have run on every shard.
DROP INDEX api_keys_by_secret_hash;
