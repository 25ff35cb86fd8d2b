// SQL for webhook endpoints: where events are sent, and their sealed signing secrets. Every
// query takes the tenant and the environment, but the resealing walk across tenants.
import type { Queryable } from '../db/pool.ts';
import { existingRowById, rowById } from '../db/row-by-id.ts';
import { rowWrites } from '../db/row-writes.ts';
import { pageReader } from '../paging.ts';
import type { Environment, TenantScope } from '../tenancy.ts';
import type { EventType } from '../events/types.ts';

export type DisabledReason = 'requested' | 'gone' | 'failing';

export interface EndpointRow {
  tenant_id: string;
  environment: Environment;
  id: string;
  url: string;
  description: string | null;
  enabled_events: (EventType | '*')[];
  secret: string;
  disabled: boolean;
  disabled_reason: DisabledReason | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What an endpoint is made of, but its secret (set at creation only). */
const ENDPOINT_FIELDS = [
  'url',
  'description',
  'enabled_events',
  'disabled',
  'disabled_reason',
  'failing_since',
] as const;

export type EndpointFields = Pick<EndpointRow, (typeof ENDPOINT_FIELDS)[number]>;

const endpointWrites = rowWrites<EndpointRow, EndpointFields, Pick<EndpointRow, 'secret'>>(
  'webhook_endpoints',
  { fixed: ['secret'], changeable: ENDPOINT_FIELDS, returning: '*' },
);

export const insertEndpoint = endpointWrites.insert;
export const updateEndpoint = endpointWrites.update;

// An update locks FOR NO KEY UPDATE (it never changes the key), which leaves the foreign-key
// checks of new webhook deliveries free: an endpoint being changed (its URL checked, which may
// take a DNS lookup) holds up no invoice creation, nor any batch of them.
export const selectEndpoint = rowById<EndpointRow>('SELECT * FROM webhook_endpoints', {
  lock: 'FOR NO KEY UPDATE',
});

export const loadEndpoint = existingRowById(selectEndpoint, 'webhook endpoint');

/** Deletes the endpoint with its deliveries and their attempts (ON DELETE CASCADE). */
export async function deleteEndpoint(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND environment = $2 AND id = $3',
    [scope.tenantId, scope.environment, id],
  );
  return rowCount === 1;
}

/** The service disables an endpoint (410 Gone, 5 days of failures); a no-op if it already is. */
export async function disableEndpoint(
  db: Queryable,
  scope: TenantScope,
  id: string,
  reason: DisabledReason,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_endpoints SET disabled = true, disabled_reason = $4, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND NOT disabled`,
    [scope.tenantId, scope.environment, id, reason],
  );
  return rowCount === 1;
}

/** Records the start of a run of failures (once), or its end after a success. */
export async function setEndpointFailingSince(
  db: Queryable,
  scope: TenantScope,
  id: string,
  since: Date | null,
): Promise<void> {
  await db.query(
    since === null
      ? `UPDATE webhook_endpoints SET failing_since = NULL
          WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND failing_since IS NOT NULL`
      : `UPDATE webhook_endpoints SET failing_since = $4
          WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND failing_since IS NULL`,
    since === null
      ? [scope.tenantId, scope.environment, id]
      : [scope.tenantId, scope.environment, id, since],
  );
}

/** One page, newest first (index webhook_endpoints_page). */
export const selectEndpointPage = pageReader<EndpointRow>('SELECT * FROM webhook_endpoints');
