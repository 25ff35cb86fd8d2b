// Tenants and API keys: one service behind both the operator CLI and /v1/api-keys.
import { inTransactionOf, type Db, type Queryable, type Tx } from '../db/pool.ts';
import { recordEvent } from '../events/service.ts';
import {
  ParameterInvalidError,
  ResourceMissingError,
  ScopeInsufficientError,
} from '../http/errors.ts';
import { newId } from '../ids.ts';
import type { PageRequest } from '../http/paging.ts';
import type { Actor, Environment, TenantScope } from '../tenancy.ts';
import { isScope, SCOPES } from './scopes.ts';
import { generateSecret, hashSecret, redactSecret } from './secret.ts';
import {
  insertApiKey,
  insertTenant,
  selectKeyById,
  selectKeyForUpdate,
  selectKeyPage,
  selectKeysOfTenant,
  selectTenant,
  selectTenants,
  setKeyExpiry,
  setKeyRevoked,
  updateTenantSettings,
  type ApiKeyRow,
  type TenantRow,
  type TenantSettings,
} from './store.ts';

export interface Tenant {
  id: string;
  name: string;
  invoicePrefix: string;
  creditNotePrefix: string;
  legalName: string | null;
  taxId: string | null;
  email: string | null;
  address: {
    line1: string | null;
    line2: string | null;
    city: string | null;
    state: string | null;
    postalCode: string | null;
    country: string | null;
  };
  createdAt: string;
}

export interface ApiKey {
  id: string;
  object: 'api_key';
  name: string | null;
  tenantId: string;
  environment: Environment;
  scopes: string[];
  redacted: string;
  rotatedFrom: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** A key as shown once, on creation or rotation: with its secret. */
export interface IssuedApiKey extends ApiKey {
  secret: string;
}

export function tenantFromRow(row: TenantRow): Tenant {
  return {
    id: row.tenant_id,
    name: row.name,
    invoicePrefix: row.invoice_prefix,
    creditNotePrefix: row.credit_note_prefix,
    legalName: row.legal_name,
    taxId: row.tax_id,
    email: row.email,
    address: {
      line1: row.address_line1,
      line2: row.address_line2,
      city: row.city,
      state: row.state,
      postalCode: row.postal_code,
      country: row.country,
    },
    createdAt: row.created_at.toISOString(),
  };
}

export function apiKeyFromRow(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    object: 'api_key',
    name: row.name,
    tenantId: row.tenant_id,
    environment: row.environment,
    scopes: row.scopes,
    redacted: row.redacted,
    rotatedFrom: row.rotated_from,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

export async function createTenant(db: Db, name: string): Promise<Tenant> {
  if (name.trim() === '') throw new ParameterInvalidError('name', 'A tenant needs a name.');
  return tenantFromRow(await insertTenant(db, newId('ten'), name));
}

export async function listTenants(db: Db): Promise<Tenant[]> {
  return (await selectTenants(db)).map(tenantFromRow);
}

export async function getTenant(db: Queryable, tenantId: string): Promise<Tenant> {
  const row = await selectTenant(db, tenantId);
  if (!row) throw new ResourceMissingError('tenant', tenantId);
  return tenantFromRow(row);
}

export async function updateTenant(
  db: Db,
  tenantId: string,
  settings: TenantSettings,
): Promise<Tenant> {
  const row = await updateTenantSettings(db, tenantId, settings);
  if (!row) throw new ResourceMissingError('tenant', tenantId);
  return tenantFromRow(row);
}

function checkScopes(requested: readonly string[], actor: Actor | null): string[] {
  if (requested.length === 0)
    throw new ParameterInvalidError('scopes', 'A key needs at least one scope.');
  for (const scope of requested) {
    if (!isScope(scope)) {
      throw new ParameterInvalidError(
        'scopes',
        `Unknown scope '${scope}'; scopes are ${SCOPES.join(', ')}.`,
      );
    }
    // A key can never grant what it does not hold itself.
    if (actor?.keyId && !actor.scopes.includes(scope)) {
      throw new ScopeInsufficientError(
        scope,
        `This API key cannot grant the scope ${scope}, which it does not hold.`,
      );
    }
  }
  return [...new Set(requested)].sort(
    (a, b) => SCOPES.indexOf(a as never) - SCOPES.indexOf(b as never),
  );
}

async function issueKey(
  tx: Queryable,
  input: {
    tenantId: string;
    environment: Environment;
    scopes: string[];
    name: string | null;
    rotatedFrom: string | null;
  },
): Promise<IssuedApiKey> {
  const secret = generateSecret(input.environment);
  const row = await insertApiKey(tx, {
    tenantId: input.tenantId,
    id: newId('key'),
    environment: input.environment,
    name: input.name,
    scopes: input.scopes,
    secretHash: hashSecret(secret),
    redacted: redactSecret(secret),
    rotatedFrom: input.rotatedFrom,
  });
  return { ...apiKeyFromRow(row), secret };
}

/**
 * Creates a key. `actor` is the key asking (over the API), or null for the operator; a key
 * may only create keys in its own tenant and environment, with scopes it holds.
 */
export async function createApiKey(
  db: Db | Tx,
  input: {
    tenantId: string;
    environment: Environment;
    scopes: readonly string[];
    name?: string | null;
  },
  actor: Actor | null,
): Promise<IssuedApiKey> {
  const scopes = checkScopes(input.scopes, actor);
  return inTransactionOf(db, async (tx) => {
    if (!(await selectTenant(tx, input.tenantId))) {
      throw new ResourceMissingError('tenant', input.tenantId, 'tenant');
    }
    const key = await issueKey(tx, {
      ...input,
      scopes,
      name: input.name ?? null,
      rotatedFrom: null,
    });
    const { secret: _secret, ...shown } = key;
    await recordEvent(tx, input, 'api_key.created', shown, { actorKeyId: actor?.keyId ?? null });
    return key;
  });
}

/** Where the CLI names a key by id alone, find its tenant and environment. */
export async function locateApiKey(db: Db, keyId: string): Promise<ApiKey> {
  const row = await selectKeyById(db, keyId);
  if (!row) throw new ResourceMissingError('api key', keyId);
  return apiKeyFromRow(row);
}

/** One page of the keys of a tenant and environment (for /v1/api-keys). */
export async function listApiKeys(
  db: Db,
  scope: TenantScope,
  page: PageRequest,
): Promise<ApiKeyRow[]> {
  return selectKeyPage(db, scope.tenantId, scope.environment, page.after, page.limit + 1);
}

export async function listApiKeysOfTenant(db: Db, tenantId: string): Promise<ApiKey[]> {
  return (await selectKeysOfTenant(db, tenantId)).map(apiKeyFromRow);
}

/**
 * Rotation: a new key with the old one's scopes. The old key keeps working until revoked, or
 * until `expireOldInSeconds` have passed when that is given.
 */
export async function rotateApiKey(
  db: Db | Tx,
  scope: { tenantId: string; environment: Environment },
  keyId: string,
  options: { expireOldInSeconds?: number | null },
  actor: Actor | null,
): Promise<IssuedApiKey> {
  return inTransactionOf(db, async (tx) => {
    const old = await selectKeyForUpdate(tx, scope.tenantId, scope.environment, keyId);
    if (!old) throw new ResourceMissingError('api key', keyId);
    const scopes = checkScopes(old.scopes, actor);
    let oldRow = old;
    if (options.expireOldInSeconds !== undefined && options.expireOldInSeconds !== null) {
      const expiresAt = new Date(Date.now() + options.expireOldInSeconds * 1000);
      if (!old.expires_at || old.expires_at > expiresAt) {
        oldRow = await setKeyExpiry(tx, scope.tenantId, keyId, expiresAt);
        await tx.query("SELECT pg_notify('api_key_changed', $1)", [keyId]);
      }
    }
    const key = await issueKey(tx, {
      tenantId: old.tenant_id,
      environment: old.environment,
      scopes,
      name: old.name,
      rotatedFrom: old.id,
    });
    const { secret: _secret, ...shown } = key;
    await recordEvent(tx, scope, 'api_key.rotated', shown, {
      actorKeyId: actor?.keyId ?? null,
      previousKey: apiKeyFromRow(oldRow),
    });
    return key;
  });
}

export async function revokeApiKey(
  db: Db | Tx,
  scope: { tenantId: string; environment: Environment },
  keyId: string,
  actor: Actor | null,
): Promise<ApiKey> {
  return inTransactionOf(db, async (tx) => {
    const old = await selectKeyForUpdate(tx, scope.tenantId, scope.environment, keyId);
    if (!old) throw new ResourceMissingError('api key', keyId);
    if (old.revoked_at) return apiKeyFromRow(old);
    const key = apiKeyFromRow(await setKeyRevoked(tx, scope.tenantId, keyId));
    await recordEvent(tx, scope, 'api_key.revoked', key, { actorKeyId: actor?.keyId ?? null });
    // Other instances drop their cached copy at once (LISTEN/NOTIFY); their cache expiry
    // (1 s) is the safety net if the notification is missed.
    await tx.query("SELECT pg_notify('api_key_changed', $1)", [keyId]);
    return key;
  });
}
