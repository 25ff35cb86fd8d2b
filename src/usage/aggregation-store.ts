// SQL that aggregates a meter's usage for one customer over buckets of time: whole UTC hours
// from the rollups, the partial hours at a bucket's ends from the events themselves.
import type { Queryable } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import type { MeterRow } from './store.ts';

/** A stretch of time that counts toward the bucket of index `bucket`: [from, to). */
export interface Span {
  bucket: number;
  from: Date;
  to: Date;
}

// Rollups by primary key (meter, customer, hour range); events by usage_events_by_customer
// (name, customer, instant range), each range scanned on its own: OFFSET 0 keeps the planner
// from joining the ranges to every event of the customer, whose count it sees but whose
// times it cannot (a sequential scan of a million events instead of a few thousand). A rollup row is one hour of the meter's events (for
// unique_count, one distinct value of the hour), so the pieces of a bucket combine as the
// aggregation does: counts and sums add, maxima take the greatest, the last value is the one
// of the latest instant, and distinct values are counted once across hours.
const AGGREGATE = `
  WITH hours AS (
    SELECT * FROM unnest($6::int[], $7::timestamptz[], $8::timestamptz[]) AS h(bucket, from_at, to_at)
  ),
  spans AS (
    SELECT * FROM unnest($9::int[], $10::timestamptz[], $11::timestamptz[]) AS s(bucket, from_at, to_at)
  ),
  pieces AS (
    SELECT h.bucket, r.event_count, r.value_sum, r.value_max, r.last_value, r.last_at,
           r.unique_value
      FROM hours h
     CROSS JOIN LATERAL (
            SELECT * FROM usage_rollups
             WHERE tenant_id = $1 AND environment = $2 AND meter_id = $3 AND customer_id = $4
               AND hour >= h.from_at AND hour < h.to_at
            OFFSET 0) r
    UNION ALL
    SELECT s.bucket, 1, x.value, x.value, x.value, e.occurred_at, x.unique_value
      FROM spans s
     CROSS JOIN LATERAL (
            SELECT occurred_at, properties FROM usage_events
             WHERE tenant_id = $1 AND environment = $2 AND event_name = $5 AND customer_id = $4
               AND occurred_at >= s.from_at AND occurred_at < s.to_at
            OFFSET 0) e
     CROSS JOIN LATERAL usage_measure($12, e.properties, $13) x
  )
  SELECT bucket, trim_scale(CASE $12::text
           WHEN 'count' THEN sum(event_count)
           WHEN 'sum' THEN sum(value_sum)
           WHEN 'max' THEN max(value_max)
           WHEN 'last' THEN (array_agg(last_value ORDER BY last_at DESC))[1]
           ELSE count(DISTINCT unique_value)
         END)::text AS value
    FROM pieces GROUP BY bucket`;

/** The meter's aggregation per bucket, as exact decimal text; buckets without events are absent. */
export async function selectAggregates(
  db: Queryable,
  scope: TenantScope,
  meter: MeterRow,
  customerId: string,
  pieces: { hours: readonly Span[]; spans: readonly Span[] },
): Promise<Map<number, string>> {
  const { hours, spans } = pieces;
  const { rows } = await db.query<{ bucket: number; value: string }>({
    name: 'usage_aggregate',
    text: AGGREGATE,
    values: [
      scope.tenantId,
      scope.environment,
      meter.id,
      customerId,
      meter.event_name,
      hours.map((h) => h.bucket),
      hours.map((h) => h.from),
      hours.map((h) => h.to),
      spans.map((s) => s.bucket),
      spans.map((s) => s.from),
      spans.map((s) => s.to),
      meter.aggregation,
      meter.value_property,
    ],
  });
  return new Map(rows.map((row) => [row.bucket, row.value]));
}
