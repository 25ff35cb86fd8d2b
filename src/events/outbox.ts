// The events a transaction records wait for its end and are written by its last statement,
// still inside it: with the Idempotency-Key's stored result when there is one (one round trip
// for both), else in a statement of their own just before COMMIT. Either way an event exists
// exactly when its change committed, and a transaction that rolls back leaves none behind.
//
// A pooled connection outlives its transactions, so every path that ends one (commit or
// rollback) takes or discards what was queued on it: takeQueuedEvents / discardQueuedEvents.
import type { Tx } from '../db/pool.ts';
import type { Environment } from '../tenancy.ts';

export interface QueuedEvent {
  tenantId: string;
  environment: Environment;
  id: string;
  type: string;
  objectId: string;
  /** The event's data as JSON, rendered when it was recorded. */
  data: string;
}

const queued = new WeakMap<Tx, QueuedEvent[]>();

export function queueEvent(tx: Tx, event: QueuedEvent): void {
  const list = queued.get(tx);
  if (list) list.push(event);
  else queued.set(tx, [event]);
}

/** The events queued in `tx`'s transaction, in the order recorded; the queue is emptied. */
export function takeQueuedEvents(tx: Tx): QueuedEvent[] {
  const list = queued.get(tx) ?? [];
  queued.delete(tx);
  return list;
}

export function discardQueuedEvents(tx: Tx): void {
  queued.delete(tx);
}

// The events (six parameters from \`$first\`: five arrays and a JSON array of the data, zipped
// by ROWS FROM), and one delivery per enabled endpoint of the tenant and environment that
// takes each event's type (partial index webhook_endpoints_enabled). Delivery ids share their
// event id's time part; their random part is made here because the number of rows is only
// known to the database. \`gate\` is a WHERE clause on \`q\` that can hold events back, or ''.
// In a batch of writes (src/http/write-batch.ts) parameter \`requests\` gives each event the
// number of the write it belongs to, as \`q.n\`, for \`gate\` to hold back the events of the
// writes not done.
//
// Outside a batch, every event of the statement belongs to one tenant and environment
// (writeQueuedEvents writes each pair's events apart; a stored result's are its request's), and
// the endpoints are read for that pair named as a constant: PostgreSQL then reads one
// partition of webhook_endpoints when it is partitioned by tenant, and Citus can route the
// statement to the tenant's shard, where a join on the arrays alone reads every one.
export function eventsCte(first: number, gate = '', requests?: number): string {
  const p = (i: number) => `unnest($${first + i}::text[])`;
  const n = requests === undefined ? '' : `, unnest($${requests}::int[])`;
  const scope =
    requests === undefined
      ? `AND e.tenant_id = ($${first}::text[])[1] COLLATE "C"
       AND e.environment = ($${first + 1}::text[])[1]`
      : '';
  return `
  queued AS (
    SELECT q.tenant_id COLLATE "C" AS tenant_id, q.environment, q.id COLLATE "C" AS id, q.type,
           q.object_id COLLATE "C" AS object_id, q.data
      FROM ROWS FROM (${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)},
                      jsonb_array_elements($${first + 5}::jsonb)${n})
           AS q(tenant_id, environment, id, type, object_id, data${n && ', n'})
     ${gate}
  ),
  event AS (
    INSERT INTO events (tenant_id, environment, id, type, object_id, data)
    SELECT tenant_id, environment, id, type, object_id, data FROM queued
  ),
  delivery AS (
    INSERT INTO webhook_deliveries (tenant_id, environment, id, endpoint_id, event_id, event_type)
    SELECT q.tenant_id, q.environment,
           'wd_' || substr(q.id, 5, 8) || substr(md5(random()::text || e.id || q.id), 1, 14),
           e.id, q.id, q.type
      FROM queued q
      JOIN webhook_endpoints e
        ON e.tenant_id = q.tenant_id AND e.environment = q.environment AND NOT e.disabled
       AND (e.enabled_events @> ARRAY[q.type] OR e.enabled_events @> ARRAY['*'])
       ${scope}
  )`;
}

export const EVENTS_CTE = eventsCte(1);

/**
 * The parameters of eventsCte: five arrays, and the events' data as one JSON array (the data
 * is JSON already: joined, it needs no escaping as an array element would, and PostgreSQL
 * parses it once).
 */
export function eventColumns(events: QueuedEvent[]): unknown[] {
  return [
    events.map((e) => e.tenantId),
    events.map((e) => e.environment),
    events.map((e) => e.id),
    events.map((e) => e.type),
    events.map((e) => e.objectId),
    `[${events.map((e) => e.data).join(',')}]`,
  ];
}

/**
 * Writes the queued events of `tx`, if any: one statement for each tenant and environment
 * (one, in a transaction that acts for one key).
 */
export async function writeQueuedEvents(tx: Tx): Promise<void> {
  const scopes = new Map<string, QueuedEvent[]>();
  for (const event of takeQueuedEvents(tx)) {
    const scope = `${event.tenantId} ${event.environment}`;
    const events = scopes.get(scope);
    if (events) events.push(event);
    else scopes.set(scope, [event]);
  }
  for (const events of scopes.values()) {
    await tx.query({
      name: 'write_events',
      text: `WITH ${EVENTS_CTE} SELECT NULL`,
      values: eventColumns(events),
    });
  }
}
