-- The hosted invoice page (API.md part C): every issued invoice has a capability link,
-- {PUBLIC_URL}/i/{token}. The token is 192 random bits; it is never stored in clear. The
-- SHA-256 of it finds the link; the token itself is kept sealed under the server's secrets key
-- (src/secrets/keyring.ts, which the database never holds), so the API can show the link again
-- while a copy of the database alone opens nothing.
--
-- One link per invoice: replacing it (POST /v1/invoices/{id}/hosted-link) overwrites the row
-- and swaps the look-up row in the same transaction, so the old link stops at once.
CREATE TABLE hosted_invoice_links (
  tenant_id    text COLLATE "C" NOT NULL,
  environment  text NOT NULL CHECK (environment IN ('live', 'test')),
  invoice_id   text COLLATE "C" NOT NULL,
  token_hash   bytea NOT NULL,
  -- v1.<keyId>.<…>: AES-256-GCM under the secrets key, bound to tenant, environment and invoice.
  token_sealed text NOT NULL,
  expires_at   timestamptz(3) NOT NULL,
  created_at   timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (tenant_id, environment, invoice_id),
  FOREIGN KEY (tenant_id, environment, invoice_id)
    REFERENCES invoices (tenant_id, environment, id)
);

-- The page knows only the token, not yet the tenant: like api_key_lookup, a reference table
-- (src/db/sharding.ts) maps the token's hash to the link's tenant, environment and invoice,
-- and the link is then read by its primary key on its tenant's shard. Written and deleted with
-- the link, in the same transaction; no foreign key (a reference table cannot refer to a
-- sharded one).
CREATE TABLE hosted_invoice_link_lookup (
  -- SHA-256 of the token; unique because SHA-256 does not collide.
  token_hash  bytea PRIMARY KEY,
  tenant_id   text COLLATE "C" NOT NULL,
  environment text NOT NULL,
  invoice_id  text COLLATE "C" NOT NULL
);
