// SQL of the unit of work (./unit-of-work.ts): Idempotency-Key records and the event outbox.
import type { Environment, TenantScope } from '../tenancy.ts';
import type { Queryable, Tx } from './pool.ts';

/** A key's slot: scoped to tenant and environment (a retry with a rotated key still matches). */
export interface KeySlot {
  tenantId: string;
  environment: Environment;
  key: string;
}

export interface StoredResult {
  fingerprint: Buffer;
  status_code: number;
  response_body: string;
  key_id: string;
  lineage_id: string;
  required_scope: string | null;
  sealed: boolean;
  expired: boolean;
}

function lockText(slot: KeySlot): string {
  return `idem\n${slot.tenantId}\n${slot.environment}\n${slot.key}`;
}

/**
 * Takes the key's in-flight lock for the transaction (at once or not at all, or waiting) and,
 * once it is held, reads the stored result: one round trip (claim_idempotency_key, migration
 * 0011, reads with a snapshot taken after the lock).
 */
export async function claimKey(
  tx: Tx,
  slot: KeySlot,
  wait: boolean,
  retentionHours: number,
): Promise<{ locked: boolean; stored: StoredResult | undefined }> {
  const { rows } = await tx.query<StoredResult & { locked: boolean }>({
    name: 'idempotency_claim',
    text: `SELECT locked, fingerprint, status_code, response_body, key_id, lineage_id,
                  required_scope, sealed, expired
             FROM claim_idempotency_key($1, $2, $3, $4, $5, $6)`,
    values: [slot.tenantId, slot.environment, slot.key, lockText(slot), wait, retentionHours],
  });
  const row = rows[0]!;
  return { locked: row.locked, stored: row.fingerprint === null ? undefined : row };
}

export async function deleteStoredResult(tx: Tx, slot: KeySlot): Promise<void> {
  await tx.query(
    'DELETE FROM idempotency_keys WHERE tenant_id = $1 AND environment = $2 AND key = $3',
    [slot.tenantId, slot.environment, slot.key],
  );
}

export interface NewStoredResult {
  fingerprint: Buffer;
  status: number;
  body: string;
  keyId: string;
  lineageId: string;
  requiredScope: string | null;
  sealed: boolean;
}

/**
 * Deletes records past their retention, a batch at a time; returns how many went. Rows are
 * named by their key, not their ctid: a ctid is unique only within one table, and on a table
 * partitioned (or sharded) by tenant the same ctid names a row in every partition.
 */
export async function purgeStoredResults(db: Queryable, retentionHours: number): Promise<number> {
  // Index idempotency_keys_by_age; spans tenants: idempotency_keys_by_age (src/db/sharding.ts).
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys
      WHERE (tenant_id, environment, key) IN (
              SELECT tenant_id, environment, key FROM idempotency_keys
               WHERE created_at < now() - make_interval(hours => $1) LIMIT 10000)`,
    [retentionHours],
  );
  return rowCount ?? 0;
}

export interface OutboxEvent {
  tenantId: string;
  environment: Environment;
  id: string;
  type: string;
  objectId: string;
  /** The event's data as JSON, rendered when it was recorded. */
  data: string;
}

/**
 * The events of a unit of work, and one webhook delivery per enabled endpoint of the tenant
 * and environment that takes each event's type (partial index webhook_endpoints_enabled): one
 * statement. Delivery ids share their event id's time part; their random part is made here
 * because the number of rows is only known to the database. Every event of a unit of work is
 * its tenant's and environment's, named as constants ($7, $8): PostgreSQL then reads one
 * partition of webhook_endpoints when it is partitioned by tenant, and Citus can route the
 * statement to the tenant's shard.
 */
/**
 * Writes what a unit of work leaves besides its own changes, in one statement: its events
 * (the outbox), a delivery of each to every endpoint of the tenant subscribed to it, and the
 * stored result of its Idempotency-Key, if it has one.
 */
export async function insertOutcome(
  tx: Tx,
  scope: TenantScope,
  events: readonly OutboxEvent[],
  stored: { slot: KeySlot; result: NewStoredResult } | null,
): Promise<void> {
  const result = stored?.result;
  await tx.query({
    name: 'unit_of_work_outcome',
    text: `WITH queued AS (
             SELECT q.tenant_id COLLATE "C" AS tenant_id, q.environment,
                    q.id COLLATE "C" AS id, q.type, q.object_id COLLATE "C" AS object_id, q.data
               FROM ROWS FROM (unnest($1::text[]), unnest($2::text[]), unnest($3::text[]),
                               unnest($4::text[]), unnest($5::text[]),
                               jsonb_array_elements($6::jsonb))
                    AS q(tenant_id, environment, id, type, object_id, data)
           ),
           event AS (
             INSERT INTO events (tenant_id, environment, id, type, object_id, data)
             SELECT tenant_id, environment, id, type, object_id, data FROM queued
           ),
           result AS (
             INSERT INTO idempotency_keys (tenant_id, environment, key, fingerprint,
                                           status_code, response_body, key_id, lineage_id,
                                           required_scope, sealed)
             SELECT $7, $8, $9::text, $10::bytea, $11::int, $12::text, $13::text, $14::text,
                    $15::text, $16::boolean
              WHERE $9::text IS NOT NULL
           )
           INSERT INTO webhook_deliveries (tenant_id, environment, id, endpoint_id, event_id,
                                           event_type)
           SELECT q.tenant_id, q.environment,
                  'wd_' || substr(q.id, 5, 8) || substr(md5(random()::text || e.id || q.id), 1, 14),
                  e.id, q.id, q.type
             FROM queued q
             JOIN webhook_endpoints e
               ON e.tenant_id = q.tenant_id AND e.environment = q.environment AND NOT e.disabled
              AND (e.enabled_events @> ARRAY[q.type] OR e.enabled_events @> ARRAY['*'])
              AND e.tenant_id = $7 AND e.environment = $8`,
    values: [
      events.map((e) => e.tenantId),
      events.map((e) => e.environment),
      events.map((e) => e.id),
      events.map((e) => e.type),
      events.map((e) => e.objectId),
      // The data is JSON already: joined, it needs no escaping, and PostgreSQL parses it once.
      `[${events.map((e) => e.data).join(',')}]`,
      scope.tenantId,
      scope.environment,
      stored?.slot.key ?? null,
      result?.fingerprint ?? null,
      result?.status ?? null,
      result?.body ?? null,
      result?.keyId ?? null,
      result?.lineageId ?? null,
      result?.requiredScope ?? null,
      result?.sealed ?? null,
    ],
  });
}
