// Webhook endpoint rules: where events may be sent (the SSRF guard), which types, the signing
// secret, and what disabling does.
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/pool.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { ParameterInvalidError, ResourceMissingError } from '../errors.ts';
import type { PageRequest } from '../paging.ts';
import { newId } from '../ids.ts';
import type { SecretsKeyring } from '../secrets/keyring.ts';
import { resealColumn } from '../secrets/reseal.ts';
import type { TenantScope } from '../tenancy.ts';
import { cancelPendingDeliveries } from './store.ts';
import { DestinationRefusedError, resolveDestination } from './destination.ts';
import {
  deleteEndpoint,
  insertEndpoint,
  loadEndpoint,
  selectEndpointPage,
  updateEndpoint,
  type EndpointFields,
  type EndpointRow,
} from './endpoint-store.ts';
import type { WebhookEndpoint, WebhookEndpointCreate, WebhookEndpointUpdate } from './schemas.ts';

export function endpointFromRow(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    enabledEvents: row.enabled_events,
    description: row.description,
    disabled: row.disabled,
    disabledReason: row.disabled_reason,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The signing secret as the standardwebhooks library reads it: whsec_ + base64 of 24 bytes. */
function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

// Signing secrets are stored sealed under the server's secrets key (src/secrets/), bound to
// their endpoint: a sealed secret copied to another endpoint's row does not open there.
function secretContext(scope: TenantScope, endpointId: string): string {
  return `webhook endpoint\n${scope.tenantId}\n${scope.environment}\n${endpointId}`;
}

/** The signing secret of an endpoint, from its sealed form. */
export function openSigningSecret(
  secrets: SecretsKeyring,
  scope: TenantScope,
  endpointId: string,
  sealed: string,
): string {
  return secrets.open(sealed, secretContext(scope, endpointId));
}

/**
 * Seals every signing secret that is in clear (stored before secrets were sealed) or sealed
 * under a previous key, under the current key; returns how many. Run at every start and by
 * `billing secrets reseal`.
 */
export function resealEndpointSecrets(db: Db, secrets: SecretsKeyring): Promise<number> {
  return resealColumn(db, secrets, SEALED_SECRETS, (endpoint, scope) => {
    const context = secretContext(scope, endpoint.key);
    const clear = endpoint.sealed.startsWith('whsec_')
      ? endpoint.sealed
      : secrets.open(endpoint.sealed, context);
    return secrets.seal(clear, context);
  });
}

/** The endpoints' signing secrets, sealed (see CROSS_TENANT_STATEMENTS). */
const SEALED_SECRETS = {
  table: 'webhook_endpoints',
  key: 'id',
  column: 'secret',
  marker: 'endpoint secrets reseal',
};

// The name is resolved before the write's transaction begins: a look-up may take seconds,
// and no connection may be held meanwhile (one tenant cannot slow another).
// Delivery checks the address again on every attempt (./destination.ts).
async function checkUrl(url: string, scope: TenantScope, allowLoopback: boolean): Promise<void> {
  try {
    await resolveDestination(url, { environment: scope.environment, allowLoopback });
  } catch (error) {
    if (error instanceof DestinationRefusedError)
      throw new ParameterInvalidError('url', error.message);
    throw error;
  }
}

function checkEnabledEvents(types: string[]): void {
  if (types.includes('*') && types.length > 1) {
    throw new ParameterInvalidError('enabledEvents', '"*" stands for every type and comes alone.');
  }
}

export async function createEndpoint(
  db: Db,
  secrets: SecretsKeyring,
  request: WriteRequest,
  input: WebhookEndpointCreate,
  allowLoopback: boolean,
): Promise<Written<WebhookEndpoint & { secret: string }>> {
  checkEnabledEvents(input.enabledEvents);
  await checkUrl(input.url, request.actor, allowLoopback);
  return unitOfWork(db, request, async (uow) => {
    const secret = newSigningSecret();
    const disabled = input.disabled ?? false;
    const id = newId('we');
    const sealed = secrets.seal(secret, secretContext(uow.actor, id));
    const row = await insertEndpoint(uow.tx, uow.actor, id, {
      secret: sealed,
      url: input.url,
      description: input.description ?? null,
      enabled_events: input.enabledEvents,
      disabled,
      disabled_reason: disabled ? 'requested' : null,
      failing_since: null,
    });
    uow.carriesSecret();
    return { ...endpointFromRow(row), secret };
  });
}

export async function getEndpoint(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<WebhookEndpoint> {
  return endpointFromRow(await loadEndpoint(db, scope, id));
}

export async function listEndpoints(
  db: Db,
  scope: TenantScope,
  page: PageRequest,
): Promise<EndpointRow[]> {
  return selectEndpointPage(db, scope, {}, page);
}

/**
 * Changes what a PATCH names. Disabling cancels the pending deliveries; re-enabling (also of
 * an endpoint the service disabled) or a new URL starts a fresh record of failures.
 */
export async function changeEndpoint(
  db: Db,
  request: WriteRequest,
  id: string,
  patch: WebhookEndpointUpdate,
  allowLoopback: boolean,
): Promise<Written<WebhookEndpoint>> {
  if (patch.enabledEvents) checkEnabledEvents(patch.enabledEvents);
  if (patch.url !== undefined) await checkUrl(patch.url, request.actor, allowLoopback);
  return unitOfWork(db, request, async ({ tx, actor: scope }) => {
    const current = await loadEndpoint(tx, scope, id, { forUpdate: true });
    const disabled = patch.disabled ?? current.disabled;
    const enabling = current.disabled && !disabled;
    const urlChanged = patch.url !== undefined && patch.url !== current.url;
    const fields: EndpointFields = {
      url: patch.url ?? current.url,
      description: patch.description === undefined ? current.description : patch.description,
      enabled_events: patch.enabledEvents ?? current.enabled_events,
      disabled,
      disabled_reason: !disabled
        ? null
        : patch.disabled === true && !current.disabled
          ? 'requested'
          : current.disabled_reason,
      // Read under the row's lock, so kept as it is unless a fresh record starts.
      failing_since: enabling || urlChanged ? null : current.failing_since,
    };
    const row = await updateEndpoint(tx, scope, id, fields);
    if (disabled && !current.disabled) await cancelPendingDeliveries(tx, scope, id);
    return endpointFromRow(row);
  });
}

export function removeEndpoint(
  db: Db,
  request: WriteRequest,
  id: string,
): Promise<Written<{ id: string; object: 'webhook_endpoint'; deleted: true }>> {
  return unitOfWork(db, request, async ({ tx, actor }) => {
    if (!(await deleteEndpoint(tx, actor, id))) {
      throw new ResourceMissingError('webhook endpoint', id);
    }
    return { id, object: 'webhook_endpoint' as const, deleted: true as const };
  });
}
