// SQL for usage events and their hourly rollups (docs/usage.md, "Storage"). Every query takes
// the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import type { UsageEventRecord } from './events.ts';

/**
 * Orders ingestion and meter creation per tenant and environment: every batch holds the lock
 * shared for its transaction, a meter's creation exclusively. A new meter's backfill then reads
 * every event committed before it, and every batch after it sees the meter and rolls up for
 * it: no event falls between the two. Taken in a statement of its own, before the statements
 * it orders take their snapshots.
 */
export async function lockUsageMeters(
  db: Queryable,
  scope: TenantScope,
  mode: 'shared' | 'exclusive',
): Promise<void> {
  const lock = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await db.query({
    name: `usage_meters_${mode}`,
    text: `SELECT ${lock}(hashtextextended($1, 0))`,
    values: [`usage meters\n${scope.tenantId}\n${scope.environment}`],
  });
}

/**
 * What events add to their meters' rollups, from `measured` (rows of meter_id, aggregation,
 * value_property, customer_id, occurred_at, properties), for the tenant and environment $1, $2:
 * each meter's row keeps what its aggregation needs (the others stay null). Rows are written
 * in one order by every writer, so concurrent batches that share rollup rows wait for each
 * other instead of deadlocking.
 */
function rollUp(measured: string): string {
  return `INSERT INTO usage_rollups AS r (tenant_id, environment, meter_id, customer_id, hour,
                                         unique_value, event_count, value_sum, value_max,
                                         last_value, last_at)
    SELECT $1, $2, e.meter_id, e.customer_id, date_trunc('hour', e.occurred_at, 'UTC'),
           x.unique_value, count(*), sum(x.value) FILTER (WHERE e.aggregation = 'sum'),
           max(x.value) FILTER (WHERE e.aggregation = 'max'),
           (array_agg(x.value ORDER BY e.occurred_at DESC)
              FILTER (WHERE e.aggregation = 'last'))[1],
           max(e.occurred_at) FILTER (WHERE e.aggregation = 'last')
      FROM (${measured}) e
     CROSS JOIN LATERAL usage_measure(e.aggregation, e.properties, e.value_property) x
     GROUP BY 3, 4, 5, 6
     ORDER BY 3, 4, 5, 6
    ON CONFLICT (tenant_id, environment, meter_id, customer_id, hour, unique_value) DO UPDATE
       SET event_count = r.event_count + excluded.event_count,
           value_sum = r.value_sum + excluded.value_sum,
           value_max = greatest(r.value_max, excluded.value_max),
           last_value = CASE WHEN excluded.last_at >= r.last_at
                             THEN excluded.last_value ELSE r.last_value END,
           last_at = greatest(r.last_at, excluded.last_at)`;
}

// One statement for the whole batch: the events, in id order (concurrent batches sharing ids
// take their row locks in one order), each kept only if its id is new; and, from exactly the
// rows kept, their meters' rollups. ON CONFLICT waits for a concurrent insert of the same id
// to commit or roll back, so an id is kept by one batch only, and kept by one if the first to
// try rolls back. An id kept before is answered by the same statement, from the row as
// committed (which a later statement would have to look up): its row is locked, and returned
// only when its stored content differs (the no-op update that returns it leaves the event as
// it was); an id neither kept nor returned is kept with the same content.
const INSERT_EVENTS = `
  WITH sent AS (
    SELECT s.id, s.event_name, s.customer_id, s.occurred_at, s.properties,
           decode(s.hash_hex, 'hex') AS content_hash
      FROM ROWS FROM (unnest($3::text[]), unnest($4::text[]), unnest($5::text[]),
                      unnest($6::timestamptz[]), jsonb_array_elements($7::jsonb),
                      unnest($8::text[]))
           AS s(id, event_name, customer_id, occurred_at, properties, hash_hex)
  ),
  written AS (
    INSERT INTO usage_events AS u (tenant_id, environment, id, event_name, customer_id,
                                   occurred_at, properties, content_hash)
    SELECT $1, $2, id, event_name, customer_id, occurred_at, properties, content_hash
      FROM sent ORDER BY id COLLATE "C"
    ON CONFLICT (tenant_id, environment, id) DO UPDATE SET content_hash = u.content_hash
     WHERE u.content_hash <> excluded.content_hash
    RETURNING u.id, u.event_name, u.customer_id, u.occurred_at, u.properties, u.content_hash
  ),
  inserted AS (
    SELECT w.* FROM written w JOIN sent s ON s.id = w.id WHERE w.content_hash = s.content_hash
  ),
  rolled AS (${rollUp(`
    SELECT m.id AS meter_id, m.aggregation, m.value_property, i.customer_id, i.occurred_at,
           i.properties
      FROM inserted i
      JOIN meters m ON m.tenant_id = $1 AND m.environment = $2 AND m.event_name = i.event_name`)})
  SELECT id, content_hash FROM written`;

/** What a batch's insert did: the ids it kept, and the ids kept before with other content. */
export interface InsertedEvents {
  kept: Set<string>;
  /** The stored content hash of each id that was kept before with other content. */
  otherContent: Map<string, Buffer>;
}

/**
 * Keeps the events whose ids are new, with their rollups. An id of `events` in neither of the
 * answer's sets was kept before with the same content.
 */
export async function insertUsageEvents(
  db: Queryable,
  scope: TenantScope,
  events: readonly UsageEventRecord[],
): Promise<InsertedEvents> {
  if (events.length === 0) return { kept: new Set(), otherContent: new Map() };
  const { rows } = await db.query<{ id: string; content_hash: Buffer }>({
    name: 'usage_events_insert',
    text: INSERT_EVENTS,
    values: [
      scope.tenantId,
      scope.environment,
      events.map((e) => e.id),
      events.map((e) => e.eventName),
      events.map((e) => e.customerId),
      events.map((e) => e.utcTimestamp),
      // One JSON array: PostgreSQL parses it once, with no array-literal escaping.
      JSON.stringify(events.map((e) => e.properties)),
      events.map((e) => e.hash.toString('hex')),
    ],
  });
  const sentHash = new Map(events.map((e) => [e.id, e.hash]));
  const kept = new Set<string>();
  const otherContent = new Map<string, Buffer>();
  for (const row of rows) {
    if (row.content_hash.equals(sentHash.get(row.id)!)) kept.add(row.id);
    else otherContent.set(row.id, row.content_hash);
  }
  return { kept, otherContent };
}

/**
 * The content hashes kept under these ids; unknown ids are left out. Asked only of ids whose
 * every event in the batch was refused (a retry of an accepted event answers duplicate even
 * once its time or meters would refuse it). One primary-key look-up per id, kept apart by
 * OFFSET 0: written as `id = ANY($3)`, the planner read all of the tenant's events through
 * usage_events_by_customer and filtered them by id. It may still, for a tenant whose events the
 * table's statistics do not show yet (docs/usage.md, "Measured"), which is why the batch's own
 * ids are answered by its insert instead.
 */
export async function selectContentHashes(
  db: Queryable,
  scope: TenantScope,
  ids: readonly string[],
): Promise<Map<string, Buffer>> {
  const { rows } = await db.query<{ id: string; content_hash: Buffer }>({
    name: 'usage_events_hashes',
    text: `SELECT s.id, e.content_hash
             FROM unnest($3::text[]) AS s(id)
            CROSS JOIN LATERAL (
                   SELECT content_hash FROM usage_events
                    WHERE tenant_id = $1 AND environment = $2 AND id = s.id
                   OFFSET 0) e`,
    values: [scope.tenantId, scope.environment, ids],
  });
  return new Map(rows.map((row) => [row.id, row.content_hash]));
}

// A meter's backfill reads every event of its name (about 6 µs an event; 12 µs for
// unique_count): a history of millions takes longer than the statements of a request may.
const BACKFILL_TIMEOUT = '120s';

/**
 * Rolls up the events already kept for a meter just created (under the exclusive lock, so no
 * batch is between its insert and its commit): index usage_events_by_customer, on the name.
 * Must run in the creating transaction: its statement timeout is that transaction's.
 */
export async function backfillRollups(
  db: Queryable,
  scope: TenantScope,
  meterId: string,
): Promise<void> {
  await db.query(`SET LOCAL statement_timeout = '${BACKFILL_TIMEOUT}'`);
  await db.query(
    rollUp(`
      SELECT m.id AS meter_id, m.aggregation, m.value_property, e.customer_id, e.occurred_at,
             e.properties
        FROM meters m
        JOIN usage_events e ON e.tenant_id = m.tenant_id AND e.environment = m.environment
                           AND e.event_name = m.event_name
       WHERE m.tenant_id = $1 AND m.environment = $2 AND m.id = $3`),
    [scope.tenantId, scope.environment, meterId],
  );
}
