// SQL of the unit of work (./unit-of-work.ts): Idempotency-Key records and the event outbox.
import { eventActor, type Actor, type Environment, type TenantScope } from '../tenancy.ts';
import type { Queryable, Tx } from './pool.ts';

/** A key's slot: scoped to tenant and environment (a retry with a rotated key still matches). */
export interface KeySlot {
  tenantId: string;
  environment: Environment;
  key: string;
}

/**
 * A result kept under an Idempotency-Key, as the database holds it. The unit of work writes
 * and reads it; what it says (its status, its bytes, who may have it again) is decided above
 * (src/http/kept-results.ts).
 */
export interface KeptResult {
  fingerprint: Buffer;
  status: number;
  body: string;
  keyId: string;
  lineageId: string;
  requiredScope: string | null;
  sealed: boolean;
}

interface KeptRow {
  locked: boolean;
  fingerprint: Buffer | null;
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
): Promise<{ locked: boolean; kept: KeptResult | undefined; expired: boolean }> {
  const { rows } = await tx.query<KeptRow>({
    name: 'idempotency_claim',
    text: `SELECT locked, fingerprint, status_code, response_body, key_id, lineage_id,
                  required_scope, sealed, expired
             FROM claim_idempotency_key($1, $2, $3, $4, $5, $6)`,
    values: [slot.tenantId, slot.environment, slot.key, lockText(slot), wait, retentionHours],
  });
  const row = rows[0]!;
  if (row.fingerprint === null) return { locked: row.locked, kept: undefined, expired: false };
  const kept: KeptResult = {
    fingerprint: row.fingerprint,
    status: row.status_code,
    body: row.response_body,
    keyId: row.key_id,
    lineageId: row.lineage_id,
    requiredScope: row.required_scope,
    sealed: row.sealed,
  };
  return { locked: row.locked, kept, expired: row.expired };
}

export async function deleteStoredResult(tx: Tx, slot: KeySlot): Promise<void> {
  await tx.query(
    'DELETE FROM idempotency_keys WHERE tenant_id = $1 AND environment = $2 AND key = $3',
    [slot.tenantId, slot.environment, slot.key],
  );
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
 * A statement that follows the outbox in the outcome statement (the webhook fan-out, given by
 * the composition root): a data-modifying statement that reads the CTE `queued` (tenant_id,
 * environment, id, type, object_id, data: the unit of work's events) and may name the unit of
 * work's tenant and environment as $7 and $8. Every event of a unit of work is its tenant's
 * and environment's: as constants, they let PostgreSQL read one partition of a table
 * partitioned by tenant, and Citus route the statement to the tenant's shard.
 */
export interface OutboxFollower {
  /** What it does, for the statement's text. */
  name: string;
  sql: string;
}

/** The outcome statement's text, with each follower of the outbox as a CTE of its own. */
export function outcomeStatement(followers: readonly OutboxFollower[]): string {
  const follow = followers.map(
    (f, i) => `,\n           -- ${f.name}\n           follower${i} AS (${f.sql})`,
  );
  return `WITH queued AS (
             SELECT q.tenant_id COLLATE "C" AS tenant_id, q.environment,
                    q.id COLLATE "C" AS id, q.type, q.object_id COLLATE "C" AS object_id, q.data
               FROM ROWS FROM (unnest($1::text[]), unnest($2::text[]), unnest($3::text[]),
                               unnest($4::text[]), unnest($5::text[]),
                               jsonb_array_elements($6::jsonb))
                    AS q(tenant_id, environment, id, type, object_id, data)
           ),
           event AS (
             INSERT INTO events (tenant_id, environment, id, type, object_id, data, actor)
             SELECT tenant_id, environment, id, type, object_id, data, $17::jsonb FROM queued
           )${follow.join('')}
           INSERT INTO idempotency_keys (tenant_id, environment, key, fingerprint, status_code,
                                         response_body, key_id, lineage_id, required_scope,
                                         sealed)
           SELECT $7, $8, $9::text, $10::bytea, $11::int, $12::text, $13::text, $14::text,
                  $15::text, $16::boolean
            WHERE $9::text IS NOT NULL`;
}

/**
 * Writes what a unit of work leaves besides its own changes, in one statement
 * (`outcomeStatement`): its events (the outbox), what follows them (a delivery of each to
 * every webhook endpoint subscribed to it), and the result kept under its Idempotency-Key, if
 * it has one.
 */
export async function insertOutcome(
  tx: Tx,
  statement: string,
  actor: Actor,
  events: readonly OutboxEvent[],
  kept: { slot: KeySlot; result: KeptResult } | null,
): Promise<void> {
  const scope: TenantScope = actor;
  const result = kept?.result;
  await tx.query({
    name: 'unit_of_work_outcome',
    text: statement,
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
      kept?.slot.key ?? null,
      result?.fingerprint ?? null,
      result?.status ?? null,
      result?.body ?? null,
      result?.keyId ?? null,
      result?.lineageId ?? null,
      result?.requiredScope ?? null,
      result?.sealed ?? null,
      // Every event of a unit of work has its one writer.
      JSON.stringify(eventActor(actor)),
    ],
  });
}
