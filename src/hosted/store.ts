// SQL of hosted invoice links: the link of each issued invoice (a tenant table) and the look-up
// of a token's hash (a reference table, src/db/sharding.ts), always written together.
import type { Queryable } from '../db/pool.ts';
import { rowsByIds } from '../db/row-by-id.ts';
import type { Environment, TenantScope } from '../tenancy.ts';

export interface LinkRow {
  invoice_id: string;
  token_hash: Buffer;
  token_sealed: string;
  expires_at: Date;
}

export interface NewLink {
  invoiceId: string;
  tokenHash: Buffer;
  tokenSealed: string;
  expiresAt: Date;
}

const INSERT_LOOKUP = `INSERT INTO hosted_invoice_link_lookup
    (token_hash, tenant_id, environment, invoice_id) VALUES ($1, $2, $3, $4)`;

/**
 * Makes or replaces the invoice's link, and swaps its look-up row in the caller's transaction,
 * so the old link stops working when it commits. `first`: the invoice is being issued, and
 * has no link to replace (a draft has no page): the link is only inserted, and one already
 * there is a conflict rather than replaced.
 * The caller holds the invoice's row lock, so two replacements of one link do not interleave.
 */
export async function upsertLink(
  db: Queryable,
  scope: TenantScope,
  link: NewLink,
  first = false,
): Promise<void> {
  const key = [scope.tenantId, scope.environment, link.invoiceId];
  const values = [...key, link.tokenHash, link.tokenSealed, link.expiresAt];
  const insert = `INSERT INTO hosted_invoice_links
      (tenant_id, environment, invoice_id, token_hash, token_sealed, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6)`;
  if (first) {
    await Promise.all([
      db.query(insert, values),
      db.query(INSERT_LOOKUP, [link.tokenHash, ...key]),
    ]);
    return;
  }
  // Sent at once, one round trip (the pool pipelines; they run in this order): the old link's
  // hash read before the new one replaces it, the new link and its look-up row. Then the old
  // look-up row goes: two statements rather than a delete with a sub-select, because on a
  // sharded database the look-up table is a reference table, which a statement cannot change
  // from a shard's rows.
  const [{ rows: old }] = await Promise.all([
    db.query<{ token_hash: Buffer }>(
      `SELECT token_hash FROM hosted_invoice_links
        WHERE tenant_id = $1 AND environment = $2 AND invoice_id = $3`,
      key,
    ),
    db.query(
      `${insert} ON CONFLICT (tenant_id, environment, invoice_id) DO UPDATE
         SET token_hash = EXCLUDED.token_hash, token_sealed = EXCLUDED.token_sealed,
             expires_at = EXCLUDED.expires_at, created_at = clock_timestamp()`,
      values,
    ),
    db.query(INSERT_LOOKUP, [link.tokenHash, ...key]),
  ]);
  if (old[0]) {
    await db.query('DELETE FROM hosted_invoice_link_lookup WHERE token_hash = $1', [
      old[0].token_hash,
    ]);
  }
}

/** The links of these invoices (primary key look-ups). */
export const selectLinks = rowsByIds<LinkRow>(
  'SELECT invoice_id, token_hash, token_sealed, expires_at FROM hosted_invoice_links',
  { column: 'invoice_id' },
);

export interface FoundLink extends TenantScope {
  invoiceId: string;
  expiresAt: Date;
}

/**
 * The link whose token has this hash: the look-up row names its tenant, then the link is read
 * by its primary key and must still carry that hash. Two statements, not a join, so that on a
 * database sharded by tenant each reads one node.
 */
export async function selectLinkByHash(
  db: Queryable,
  tokenHash: Buffer,
): Promise<FoundLink | undefined> {
  const { rows: found } = await db.query<{
    tenant_id: string;
    environment: Environment;
    invoice_id: string;
  }>(
    `SELECT tenant_id, environment, invoice_id FROM hosted_invoice_link_lookup
      WHERE token_hash = $1`,
    [tokenHash],
  );
  const lookup = found[0];
  if (!lookup) return undefined;
  const { rows } = await db.query<{ expires_at: Date }>(
    `SELECT expires_at FROM hosted_invoice_links
      WHERE tenant_id = $1 AND environment = $2 AND invoice_id = $3 AND token_hash = $4`,
    [lookup.tenant_id, lookup.environment, lookup.invoice_id, tokenHash],
  );
  if (!rows[0]) return undefined;
  return {
    tenantId: lookup.tenant_id,
    environment: lookup.environment,
    invoiceId: lookup.invoice_id,
    expiresAt: rows[0].expires_at,
  };
}
