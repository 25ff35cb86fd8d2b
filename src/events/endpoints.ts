// Webhook endpoint rules: where events may be sent (the SSRF guard), which types, the signing
// secret, and what disabling does.
import { randomBytes } from 'node:crypto';
import type { Db, Queryable, Tx } from '../db/pool.ts';
import { ParameterInvalidError, ResourceMissingError } from '../http/errors.ts';
import type { PageRequest } from '../http/paging.ts';
import { newId } from '../ids.ts';
import type { TenantScope } from '../tenancy.ts';
import { cancelPendingDeliveries } from './delivery-store.ts';
import { DestinationRefusedError, resolveDestination } from './destination.ts';
import {
  deleteEndpoint,
  insertEndpoint,
  selectEndpoint,
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

// The name is resolved here, inside the write's transaction: a look-up takes milliseconds
// and is bounded (5 s), and the endpoint must not exist unless its URL passed.
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
  tx: Tx,
  scope: TenantScope,
  input: WebhookEndpointCreate,
  allowLoopback: boolean,
): Promise<WebhookEndpoint & { secret: string }> {
  checkEnabledEvents(input.enabledEvents);
  await checkUrl(input.url, scope, allowLoopback);
  const secret = newSigningSecret();
  const disabled = input.disabled ?? false;
  const row = await insertEndpoint(tx, scope, newId('we'), secret, {
    url: input.url,
    description: input.description ?? null,
    enabledEvents: input.enabledEvents,
    disabled,
    disabledReason: disabled ? 'requested' : null,
  });
  return { ...endpointFromRow(row), secret };
}

export async function getEndpoint(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<WebhookEndpoint> {
  const row = await selectEndpoint(db, scope, id);
  if (!row) throw new ResourceMissingError('webhook endpoint', id);
  return endpointFromRow(row);
}

export async function listEndpoints(
  db: Db,
  scope: TenantScope,
  page: PageRequest,
): Promise<EndpointRow[]> {
  return selectEndpointPage(db, scope, page.after, page.limit + 1);
}

/**
 * Changes what a PATCH names. Disabling cancels the pending deliveries; re-enabling (also of
 * an endpoint the service disabled) or a new URL starts a fresh record of failures.
 */
export async function changeEndpoint(
  tx: Tx,
  scope: TenantScope,
  id: string,
  patch: WebhookEndpointUpdate,
  allowLoopback: boolean,
): Promise<WebhookEndpoint> {
  const current = await selectEndpoint(tx, scope, id, { forUpdate: true });
  if (!current) throw new ResourceMissingError('webhook endpoint', id);
  if (patch.enabledEvents) checkEnabledEvents(patch.enabledEvents);
  if (patch.url !== undefined) await checkUrl(patch.url, scope, allowLoopback);
  const disabled = patch.disabled ?? current.disabled;
  const fields: EndpointFields = {
    url: patch.url ?? current.url,
    description: patch.description === undefined ? current.description : patch.description,
    enabledEvents: patch.enabledEvents ?? current.enabled_events,
    disabled,
    disabledReason: !disabled
      ? null
      : patch.disabled === true && !current.disabled
        ? 'requested'
        : current.disabled_reason,
  };
  const enabling = current.disabled && !disabled;
  const urlChanged = patch.url !== undefined && patch.url !== current.url;
  const row = await updateEndpoint(tx, scope, id, fields, enabling || urlChanged);
  if (disabled && !current.disabled) await cancelPendingDeliveries(tx, scope, id);
  return endpointFromRow(row);
}

export async function removeEndpoint(
  tx: Tx,
  scope: TenantScope,
  id: string,
): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
  if (!(await deleteEndpoint(tx, scope, id)))
    throw new ResourceMissingError('webhook endpoint', id);
  return { id, object: 'webhook_endpoint', deleted: true };
}
