// SQL for webhook deliveries (the outbox queue) and their attempts; endpoints in
// ./endpoint-store.ts. Every query takes the tenant and the environment, but the worker's claim.
import type { Queryable } from '../db/pool.ts';
import { rowsByIds } from '../db/row-by-id.ts';
import { pageReader } from '../paging.ts';
import type { Environment, TenantScope } from '../tenancy.ts';
import type { EventType } from '../events/types.ts';
import type { EventActor } from '../tenancy.ts';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface DeliveryRow {
  tenant_id: string;
  environment: Environment;
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: EventType;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date;
  lease_token: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
  response_body: string | null;
}

/** A delivery a worker holds the lease on, with what it needs to send it. */
export interface ClaimedDelivery extends DeliveryRow {
  url: string;
  secret: string;
  endpoint_disabled: boolean;
  failing_since: Date | null;
  event_data: Record<string, unknown>;
  event_actor: EventActor | null;
  event_created_at: Date;
}

// The due deliveries of every tenant, oldest due first (index webhook_deliveries_due).
// SKIP LOCKED lets any number of workers claim side by side, each taking rows no other is
// taking; the claim moves next_attempt_at to the lease's end and stamps the worker's token,
// so once this short statement commits nobody else sees the rows as due until the lease
// lapses (a worker that died mid-attempt). A delivery whose endpoint was disabled meanwhile
// is cancelled here instead of sent.
const CLAIM_SQL = `
  WITH due AS (
    SELECT tenant_id, environment, id FROM webhook_deliveries
     WHERE status = 'pending' AND next_attempt_at <= clock_timestamp()
     ORDER BY next_attempt_at
     LIMIT $1
     FOR UPDATE SKIP LOCKED
  )
  UPDATE webhook_deliveries d
     SET attempt_count = d.attempt_count + CASE WHEN ep.disabled THEN 0 ELSE 1 END,
         status = CASE WHEN ep.disabled THEN 'cancelled' ELSE d.status END,
         next_attempt_at = clock_timestamp() + make_interval(secs => $2),
         lease_token = $3,
         updated_at = clock_timestamp()
    FROM due, webhook_endpoints ep, events ev
   WHERE d.tenant_id = due.tenant_id AND d.environment = due.environment AND d.id = due.id
     AND ep.tenant_id = d.tenant_id AND ep.environment = d.environment AND ep.id = d.endpoint_id
     AND ev.tenant_id = d.tenant_id AND ev.id = d.event_id
  RETURNING d.*, ep.url, ep.secret, ep.disabled AS endpoint_disabled, ep.failing_since,
            ev.data AS event_data, ev.actor AS event_actor, ev.created_at AS event_created_at`;

export async function claimDueDeliveries(
  db: Queryable,
  limit: number,
  leaseSeconds: number,
  token: string,
): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimedDelivery>({
    name: 'claim_webhook_deliveries',
    text: CLAIM_SQL,
    values: [limit, leaseSeconds, token],
  });
  return rows;
}

/**
 * Ends a lease: the delivery's new status and due time. Only the holder of the lease may;
 * a delivery cancelled meanwhile (endpoint disabled) stays cancelled. Returns false when the
 * lease was no longer held (delivery deleted, or re-queued by hand).
 */
export async function releaseDelivery(
  db: Queryable,
  scope: TenantScope,
  id: string,
  token: string,
  status: DeliveryStatus,
  nextAttemptAt: Date | null,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_deliveries
        SET status = CASE WHEN status = 'pending' THEN $5 ELSE status END,
            next_attempt_at = COALESCE($6, next_attempt_at), lease_token = NULL,
            updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND lease_token = $4`,
    [scope.tenantId, scope.environment, id, token, status, nextAttemptAt],
  );
  return rowCount === 1;
}

/** Records an attempt, unless its delivery was deleted meanwhile (with its endpoint). */
export async function insertAttempt(
  db: Queryable,
  scope: TenantScope,
  attempt: AttemptRow,
): Promise<void> {
  await db.query(
    `INSERT INTO webhook_attempts (tenant_id, environment, delivery_id, attempt, attempted_at,
                                   duration_ms, response_status, error, response_body)
     SELECT $1, $2, $3, $4::integer, $5::timestamptz, $6::integer, $7::integer, $8::text, $9::text
      WHERE EXISTS (SELECT 1 FROM webhook_deliveries
                     WHERE tenant_id = $1 AND environment = $2 AND id = $3)
     ON CONFLICT DO NOTHING`,
    [
      scope.tenantId,
      scope.environment,
      attempt.delivery_id,
      attempt.attempt,
      attempt.attempted_at,
      attempt.duration_ms,
      attempt.response_status,
      attempt.error,
      attempt.response_body,
    ],
  );
}

/** A disabled endpoint gets nothing more: its pending deliveries are cancelled. */
export async function cancelPendingDeliveries(
  db: Queryable,
  scope: TenantScope,
  endpointId: string,
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET status = 'cancelled', updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND endpoint_id = $3 AND status = 'pending'`,
    [scope.tenantId, scope.environment, endpointId],
  );
}

export async function selectDelivery(
  db: Queryable,
  scope: TenantScope,
  endpointId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT * FROM webhook_deliveries
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND endpoint_id = $4
     ${options.forUpdate ? 'FOR UPDATE' : ''}`,
    [scope.tenantId, scope.environment, id, endpointId],
  );
  return rows[0];
}

/** Due now, outside any lease (a manual retry). */
export async function requeueDelivery(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<DeliveryRow> {
  const { rows } = await db.query<DeliveryRow>(
    `UPDATE webhook_deliveries
        SET status = 'pending', next_attempt_at = clock_timestamp(), lease_token = NULL,
            updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING *`,
    [scope.tenantId, scope.environment, id],
  );
  return rows[0]!;
}

/** One page of an endpoint's deliveries, newest first (index webhook_deliveries_page). */
export const selectDeliveryPage = pageReader<DeliveryRow, { endpointId: string }>(
  'SELECT * FROM webhook_deliveries',
  { filters: (f) => [['endpoint_id', f.endpointId]] },
);

/** The attempts of some deliveries, oldest first (primary key). */
export const selectAttempts = rowsByIds<AttemptRow>(
  `SELECT delivery_id, attempt, attempted_at, duration_ms, response_status, error, response_body
     FROM webhook_attempts`,
  { column: 'delivery_id', orderBy: 'delivery_id, attempt' },
);
