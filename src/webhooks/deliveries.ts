// Delivery rules: what an attempt's outcome does to the delivery and its endpoint (retry
// schedule, Retry-After, 410 Gone, 5 days of failure), listing, and the manual retry.
import type { Clock } from '../clock.ts';
import { inSnapshot, type Db } from '../db/pool.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { ResourceMissingError, StateInvalidError } from '../errors.ts';
import type { PageRequest } from '../paging.ts';
import { operator, type TenantScope } from '../tenancy.ts';
import {
  cancelPendingDeliveries,
  insertAttempt,
  releaseDelivery,
  requeueDelivery,
  selectAttempts,
  selectDelivery,
  selectDeliveryPage,
  type AttemptRow,
  type ClaimedDelivery,
  type DeliveryRow,
  type DeliveryStatus,
} from './store.ts';
import {
  disableEndpoint,
  loadEndpoint,
  setEndpointFailingSince,
  type DisabledReason,
} from './endpoint-store.ts';
import { FAILING_ENDPOINT_DISABLED_AFTER_MS, nextAttemptDelay } from './retry.ts';
import type { WebhookDelivery } from './schemas.ts';
import type { AttemptOutcome } from './sender.ts';

export function deliveryFromRow(row: DeliveryRow, attempts: AttemptRow[]): WebhookDelivery {
  return {
    id: row.id,
    object: 'webhook_delivery',
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      attemptedAt: a.attempted_at.toISOString(),
      durationMs: a.duration_ms,
      responseStatus: a.response_status,
      error: a.error,
      responseBody: a.response_body,
    })),
  };
}

/** The page of deliveries with the attempts of each. */
export async function listDeliveries(
  db: Db,
  scope: TenantScope,
  endpointId: string,
  page: PageRequest,
): Promise<{ rows: DeliveryRow[]; attemptsOf: (row: DeliveryRow) => AttemptRow[] }> {
  // One snapshot: an attempt recorded between the two reads would otherwise show with the
  // delivery's state from before it (its lease's end as the next attempt).
  const { rows, attempts } = await inSnapshot(db, async (tx) => {
    await loadEndpoint(tx, scope, endpointId);
    const rows = await selectDeliveryPage(tx, scope, { endpointId }, page);
    const ids = rows.map((r) => r.id);
    return { rows, attempts: await selectAttempts(tx, scope, ids) };
  });
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.delivery_id) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.delivery_id, list);
  }
  return { rows, attemptsOf: (row) => byDelivery.get(row.id) ?? [] };
}

/** The attempts of one delivery, oldest first. */
export function attemptsOfDelivery(
  db: Db,
  scope: TenantScope,
  deliveryId: string,
): Promise<AttemptRow[]> {
  return selectAttempts(db, scope, [deliveryId]);
}

/**
 * A manual retry: the delivery is due at once, whatever its status. It then follows the
 * schedule from the attempts it already had (a delivery that had exhausted it gets this one
 * attempt). Refused while the endpoint is disabled or the delivery is being attempted.
 */
export function retryDelivery(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  endpointId: string,
  deliveryId: string,
): Promise<Written<WebhookDelivery>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const endpoint = await loadEndpoint(tx, scope, endpointId);
    const delivery = await selectDelivery(tx, scope, endpointId, deliveryId, { forUpdate: true });
    if (!delivery) throw new ResourceMissingError('webhook delivery', deliveryId);
    if (endpoint.disabled) {
      throw new StateInvalidError('The webhook endpoint is disabled; enable it before retrying.');
    }
    const leased = delivery.lease_token !== null && delivery.next_attempt_at > clock.now();
    if (leased && delivery.status === 'pending') {
      throw new StateInvalidError('This delivery is being attempted right now.');
    }
    const row = await requeueDelivery(tx, scope, deliveryId);
    return deliveryFromRow(row, await selectAttempts(tx, scope, [deliveryId]));
  });
}

/** What an attempt's outcome does to its delivery and endpoint; one transaction. */
export async function recordAttemptOutcome(
  db: Db,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
  clock: Clock,
): Promise<void> {
  const scope: TenantScope = { tenantId: delivery.tenant_id, environment: delivery.environment };
  const endpointId = delivery.endpoint_id;
  await unitOfWork(db, { actor: operator(scope.tenantId, scope.environment) }, async ({ tx }) => {
    let status: DeliveryStatus = 'succeeded';
    let nextAttemptAt: Date | null = null;
    let disable: DisabledReason | null = null;
    // Lock order, as in PATCH: the endpoint first, then deliveries.
    if (outcome.ok) {
      if (delivery.failing_since) await setEndpointFailingSince(tx, scope, endpointId, null);
    } else {
      const failingFor = delivery.failing_since
        ? outcome.attemptedAt.getTime() - delivery.failing_since.getTime()
        : 0;
      if (outcome.responseStatus === 410) disable = 'gone';
      else if (failingFor >= FAILING_ENDPOINT_DISABLED_AFTER_MS) disable = 'failing';
      else if (!delivery.failing_since) {
        await setEndpointFailingSince(tx, scope, endpointId, outcome.attemptedAt);
      }
      const delay =
        disable === null ? nextAttemptDelay(delivery.attempt_count, outcome.retryAfterMs) : null;
      status = delay === null ? 'failed' : 'pending';
      nextAttemptAt = delay === null ? null : new Date(clock.nowMs() + delay);
    }
    if (disable) await disableEndpoint(tx, scope, endpointId, disable);
    await releaseDelivery(tx, scope, delivery.id, delivery.lease_token!, status, nextAttemptAt);
    if (disable) await cancelPendingDeliveries(tx, scope, endpointId);
    await insertAttempt(tx, scope, {
      delivery_id: delivery.id,
      attempt: delivery.attempt_count,
      attempted_at: outcome.attemptedAt,
      duration_ms: outcome.durationMs,
      response_status: outcome.responseStatus,
      error: outcome.error,
      response_body: outcome.responseBody,
    });
  });
}
