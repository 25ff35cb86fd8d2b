// SQL for API keys.
import type { Queryable } from '../db/pool.ts';
import { pageReader } from '../paging.ts';
import type { Environment } from '../tenancy.ts';
import type { Scope } from './scopes.ts';

export interface ApiKeyRow {
  tenant_id: string;
  id: string;
  environment: Environment;
  name: string | null;
  scopes: Scope[];
  redacted: string;
  rotated_from: string | null;
  lineage_id: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const KEY_COLUMNS = `tenant_id, id, environment, name, scopes, redacted, rotated_from, lineage_id,
  created_at, expires_at, revoked_at, last_used_at`;

/**
 * Inserts a key and its row in api_key_lookup (the look-up by hash). Two statements: the caller
 * runs them in its transaction, so a key is never found without its lookup row or the other
 * way round.
 */
export async function insertApiKey(
  db: Queryable,
  key: {
    tenantId: string;
    id: string;
    environment: Environment;
    name: string | null;
    scopes: Scope[];
    secretHash: Buffer;
    redacted: string;
    rotatedFrom: string | null;
    lineageId: string;
  },
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (tenant_id, id, environment, name, scopes, secret_hash, redacted,
                           rotated_from, lineage_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${KEY_COLUMNS}`,
    [
      key.tenantId,
      key.id,
      key.environment,
      key.name,
      key.scopes,
      key.secretHash,
      key.redacted,
      key.rotatedFrom,
      key.lineageId,
    ],
  );
  await db.query(
    'INSERT INTO api_key_lookup (secret_hash, tenant_id, key_id) VALUES ($1, $2, $3)',
    [key.secretHash, key.tenantId, key.id],
  );
  return rows[0]!;
}

/**
 * Authentication's look-up by hash alone: api_key_lookup names the key's tenant (its primary
 * key), then the key is read by its own primary key. Two statements, not a join, so that on a
 * database sharded by tenant each reads one node (src/db/sharding.ts).
 */
export async function selectKeyBySecretHash(
  db: Queryable,
  secretHash: Buffer,
): Promise<ApiKeyRow | undefined> {
  const { rows: found } = await db.query<{ tenant_id: string; key_id: string }>({
    name: 'api_key_lookup',
    text: 'SELECT tenant_id, key_id FROM api_key_lookup WHERE secret_hash = $1',
    values: [secretHash],
  });
  if (found.length === 0) return undefined;
  const { rows } = await db.query<ApiKeyRow>({
    name: 'api_key_by_id',
    text: `SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 AND id = $2`,
    values: [found[0]!.tenant_id, found[0]!.key_id],
  });
  return rows[0];
}

/** The operator's look-up of a key by id alone (the CLI names keys by id). */
export async function selectKeyById(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [
    id,
  ]);
  return rows[0];
}

export async function selectKeyForUpdate(
  db: Queryable,
  tenantId: string,
  environment: Environment,
  id: string,
): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 FOR UPDATE`,
    [tenantId, environment, id],
  );
  return rows[0];
}

export async function selectKeysOfTenant(db: Queryable, tenantId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, id`,
    [tenantId],
  );
  return rows;
}

/** One page of a tenant's keys in one environment, newest first (index api_keys_page). */
export const selectKeyPage = pageReader<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys`);

export async function setKeyExpiry(
  db: Queryable,
  tenantId: string,
  id: string,
  expiresAt: Date | null,
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET expires_at = $3 WHERE tenant_id = $1 AND id = $2 RETURNING ${KEY_COLUMNS}`,
    [tenantId, id, expiresAt],
  );
  return rows[0]!;
}

export async function setKeyRevoked(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, clock_timestamp())
      WHERE tenant_id = $1 AND id = $2 RETURNING ${KEY_COLUMNS}`,
    [tenantId, id],
  );
  return rows[0]!;
}

export async function touchKeysLastUsed(
  db: Queryable,
  uses: { tenantId: string; id: string; minute: Date }[],
): Promise<void> {
  if (uses.length === 0) return;
  await db.query(
    `UPDATE api_keys k SET last_used_at = u.minute -- spans tenants: keys last used
       FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS u(tenant_id, id, minute)
      WHERE k.tenant_id = u.tenant_id AND k.id = u.id
        AND (k.last_used_at IS NULL OR k.last_used_at < u.minute)`,
    [uses.map((u) => u.tenantId), uses.map((u) => u.id), uses.map((u) => u.minute)],
  );
}

/**
 * Tells every instance (LISTEN api_key_changed in ./verifier.ts) to drop its cached copy of the
 * key when this transaction commits.
 */
export async function notifyKeyChanged(db: Queryable, keyId: string): Promise<void> {
  await db.query("SELECT pg_notify('api_key_changed', $1)", [keyId]);
}

/** The channel notifyKeyChanged speaks on, heard by every instance's verifier. */
export async function listenForKeyChanges(client: Queryable): Promise<void> {
  await client.query('LISTEN api_key_changed');
}

export async function stopListening(client: Queryable): Promise<void> {
  await client.query('UNLISTEN *');
}

// The first start's tenant is made once, however many instances start together: a session
// lock (embedded database only, never behind a pooler).
const BOOTSTRAP_LOCK = 7340202;

export async function lockFirstStart(client: Queryable): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [BOOTSTRAP_LOCK]);
}

export async function unlockFirstStart(client: Queryable): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1)', [BOOTSTRAP_LOCK]);
}
