// API keys: one service behind both the operator CLI and /v1/api-keys.
import { systemClock, type Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import {
  unitOfWork,
  type UnitOfWork,
  type WriteRequest,
  type Written,
} from '../db/unit-of-work.ts';
import {
  ParameterInvalidError,
  ResourceMissingError,
  ScopeInsufficientError,
  StateInvalidError,
} from '../errors.ts';
import { newId } from '../ids.ts';
import type { PageRequest } from '../paging.ts';
import type { Actor, Environment, TenantScope } from '../tenancy.ts';

export { operator } from '../tenancy.ts';
import { findTenant } from '../tenants/service.ts';
import { isScope, SCOPES, type Scope } from './scopes.ts';
import { generateSecret, hashSecret, redactSecret } from './secret.ts';
import {
  insertApiKey,
  notifyKeyChanged,
  selectKeyById,
  selectKeyForUpdate,
  selectKeyPage,
  selectKeysOfTenant,
  setKeyExpiry,
  setKeyRevoked,
  type ApiKeyRow,
} from './store.ts';

export interface ApiKey {
  id: string;
  object: 'api_key';
  name: string | null;
  tenantId: string;
  environment: Environment;
  scopes: Scope[];
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

function checkScopes(requested: readonly string[], actor: Actor | null): Scope[] {
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
  return SCOPES.filter((scope) => requested.includes(scope));
}

async function issueKey(
  uow: UnitOfWork,
  input: {
    tenantId: string;
    environment: Environment;
    scopes: Scope[];
    name: string | null;
    rotatedFrom: ApiKeyRow | null;
  },
): Promise<IssuedApiKey> {
  const secret = generateSecret(input.environment);
  const id = newId('key');
  const row = await insertApiKey(uow.tx, {
    tenantId: input.tenantId,
    id,
    environment: input.environment,
    name: input.name,
    scopes: input.scopes,
    secretHash: hashSecret(secret),
    redacted: redactSecret(secret),
    rotatedFrom: input.rotatedFrom?.id ?? null,
    lineageId: input.rotatedFrom?.lineage_id ?? id,
  });
  uow.carriesSecret();
  return { ...apiKeyFromRow(row), secret };
}

/**
 * Creates a key in the actor's tenant and environment (the operator names them through the
 * actor, see `operator`); a key may only create keys with scopes it holds.
 */
export function createApiKey(
  db: Db,
  request: WriteRequest,
  input: { scopes: readonly string[]; name?: string | null },
): Promise<Written<IssuedApiKey>> {
  const { actor } = request;
  const scopes = checkScopes(input.scopes, actor);
  return unitOfWork(db, request, async (uow) => {
    if (!(await findTenant(uow.tx, actor.tenantId))) {
      throw new ResourceMissingError('tenant', actor.tenantId, 'tenant');
    }
    const key = await issueKey(uow, {
      tenantId: actor.tenantId,
      environment: actor.environment,
      scopes,
      name: input.name ?? null,
      rotatedFrom: null,
    });
    const { secret: _secret, ...shown } = key;
    uow.event('api_key.created', shown, { actorKeyId: actor.keyId });
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
  return selectKeyPage(db, scope, {}, page);
}

export async function listApiKeysOfTenant(db: Db, tenantId: string): Promise<ApiKey[]> {
  return (await selectKeysOfTenant(db, tenantId)).map(apiKeyFromRow);
}

function isActive(row: ApiKeyRow, now: Date): boolean {
  return row.revoked_at === null && (row.expires_at === null || row.expires_at > now);
}

/** The key, locked; a key may act on keys holding only scopes it holds itself. */
async function lockKey(uow: UnitOfWork, keyId: string, verb: string): Promise<ApiKeyRow> {
  const { actor } = uow;
  const row = await selectKeyForUpdate(uow.tx, actor.tenantId, actor.environment, keyId);
  if (!row) throw new ResourceMissingError('api key', keyId);
  if (actor.keyId !== null && actor.keyId !== row.id) {
    const lacking = row.scopes.find((scope) => !actor.scopes.includes(scope));
    if (lacking !== undefined) {
      throw new ScopeInsufficientError(
        lacking,
        `This API key cannot ${verb} a key holding the scope ${lacking}, which it does not hold.`,
      );
    }
  }
  return row;
}

/**
 * Rotation: a new key with the old one's scopes. The old key keeps working until revoked, or
 * until `expireOldInSeconds` have passed when that is given. A revoked or expired key cannot
 * be brought back by rotating it (409 state_invalid).
 */
export function rotateApiKey(
  db: Db,
  request: WriteRequest,
  keyId: string,
  options: { expireOldInSeconds?: number | null },
  clock: Clock = systemClock,
): Promise<Written<IssuedApiKey>> {
  return unitOfWork(db, request, async (uow) => {
    const old = await lockKey(uow, keyId, 'rotate');
    const now = clock.now();
    if (!isActive(old, now)) {
      throw new StateInvalidError(
        `This API key is ${old.revoked_at ? 'revoked' : 'expired'}; only an active key can be rotated.`,
      );
    }
    let oldRow = old;
    if (options.expireOldInSeconds !== undefined && options.expireOldInSeconds !== null) {
      const expiresAt = new Date(now.getTime() + options.expireOldInSeconds * 1000);
      if (!old.expires_at || old.expires_at > expiresAt) {
        oldRow = await setKeyExpiry(uow.tx, old.tenant_id, keyId, expiresAt);
        await notifyKeyChanged(uow.tx, keyId);
      }
    }
    const key = await issueKey(uow, {
      tenantId: old.tenant_id,
      environment: old.environment,
      scopes: old.scopes,
      name: old.name,
      rotatedFrom: old,
    });
    const { secret: _secret, ...shown } = key;
    uow.event('api_key.rotated', shown, {
      actorKeyId: uow.actor.keyId,
      previousKey: apiKeyFromRow(oldRow),
    });
    return key;
  });
}

export function revokeApiKey(
  db: Db,
  request: WriteRequest,
  keyId: string,
): Promise<Written<ApiKey>> {
  return unitOfWork(db, request, async (uow) => {
    const old = await lockKey(uow, keyId, 'revoke');
    if (old.revoked_at) return apiKeyFromRow(old);
    const key = apiKeyFromRow(await setKeyRevoked(uow.tx, old.tenant_id, keyId));
    uow.event('api_key.revoked', key, { actorKeyId: uow.actor.keyId });
    // Other instances drop their cached copy at once (LISTEN/NOTIFY); their cache expiry
    // (1 s) is the safety net if the notification is missed.
    await notifyKeyChanged(uow.tx, keyId);
    return key;
  });
}
