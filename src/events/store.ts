// SQL for the event outbox. Every query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import type { PagePosition } from '../http/paging.ts';
import type { Environment, TenantScope } from '../tenancy.ts';

export interface EventRow {
  tenant_id: string;
  environment: Environment;
  id: string;
  type: string;
  object_id: string;
  data: Record<string, unknown>;
  created_at: Date;
}

// One statement, one round trip, on every write of the API: the event, and one delivery per
// enabled endpoint of the tenant and environment that takes this type (partial index
// webhook_endpoints_enabled). Delivery ids share the event id's time part; their random part
// is made here because the number of rows is only known to the database.
const RECORD_EVENT_SQL = `
  WITH event AS (
    INSERT INTO events (tenant_id, environment, id, type, object_id, data)
    VALUES ($1, $2, $3, $4, $5, $6)
  )
  INSERT INTO webhook_deliveries (tenant_id, environment, id, endpoint_id, event_id, event_type)
  SELECT $1, $2, 'wd_' || substr($3::text, 5, 8) || substr(md5(random()::text || e.id), 1, 14),
         e.id, $3, $4
    FROM webhook_endpoints e
   WHERE e.tenant_id = $1 AND e.environment = $2 AND NOT e.disabled
     AND (e.enabled_events @> ARRAY[$4::text] OR e.enabled_events @> ARRAY['*'])`;

export async function insertEventWithDeliveries(
  db: Queryable,
  event: {
    tenantId: string;
    environment: Environment;
    id: string;
    type: string;
    objectId: string;
    data: Record<string, unknown>;
  },
): Promise<void> {
  await db.query({
    name: 'record_event',
    text: RECORD_EVENT_SQL,
    values: [event.tenantId, event.environment, event.id, event.type, event.objectId, event.data],
  });
}

export async function selectEvent(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<EventRow | undefined> {
  const { rows } = await db.query<EventRow>(
    'SELECT * FROM events WHERE tenant_id = $1 AND environment = $2 AND id = $3',
    [scope.tenantId, scope.environment, id],
  );
  return rows[0];
}

// Fixed texts per variant so that each uses its index as a keyset bound (see customers).
// A key that reads only some types walks events_by_type once per readable type, each walk
// stopping after one page, and merges: the cost stays one page per type at any depth.
const PAGE_SQL = {
  all: `SELECT * FROM events WHERE tenant_id = $1 AND environment = $2
        ORDER BY created_at DESC, id DESC LIMIT $3`,
  allAfter: `SELECT * FROM events WHERE tenant_id = $1 AND environment = $2
               AND (created_at, id) < ($4, $5)
             ORDER BY created_at DESC, id DESC LIMIT $3`,
  types: `SELECT e.* FROM unnest($4::text[]) AS t(type)
          CROSS JOIN LATERAL (
            SELECT * FROM events WHERE tenant_id = $1 AND environment = $2 AND type = t.type
            ORDER BY created_at DESC, id DESC LIMIT $3) e
          ORDER BY e.created_at DESC, e.id DESC LIMIT $3`,
  typesAfter: `SELECT e.* FROM unnest($4::text[]) AS t(type)
               CROSS JOIN LATERAL (
                 SELECT * FROM events WHERE tenant_id = $1 AND environment = $2 AND type = t.type
                    AND (created_at, id) < ($5, $6)
                 ORDER BY created_at DESC, id DESC LIMIT $3) e
               ORDER BY e.created_at DESC, e.id DESC LIMIT $3`,
};

/**
 * One page, newest first: index events_page for every type (types null), events_by_type for
 * a list of types.
 */
export async function selectEventPage(
  db: Queryable,
  scope: TenantScope,
  types: readonly string[] | null,
  after: PagePosition | null,
  limit: number,
): Promise<EventRow[]> {
  const params: unknown[] = [scope.tenantId, scope.environment, limit];
  if (types !== null) params.push(types);
  if (after) params.push(after.createdAt, after.id);
  const variant: keyof typeof PAGE_SQL =
    types === null ? (after ? 'allAfter' : 'all') : after ? 'typesAfter' : 'types';
  const { rows } = await db.query<EventRow>({
    name: `events_page_${variant}`,
    text: PAGE_SQL[variant],
    values: params,
  });
  return rows;
}
