// SQL for the event outbox. Every query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import type { PagePosition } from '../paging.ts';
import type { Environment, TenantScope } from '../tenancy.ts';
import type { EventType } from './types.ts';

export interface EventRow {
  tenant_id: string;
  environment: Environment;
  id: string;
  type: EventType;
  object_id: string;
  data: Record<string, unknown>;
  created_at: Date;
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
