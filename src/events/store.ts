// SQL for the event outbox. Every query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import { rowById } from '../db/row-by-id.ts';
import { keysetPage, pageReader, type PageRequest } from '../paging.ts';
import type { Environment, EventActor, TenantScope } from '../tenancy.ts';
import type { EventType } from './types.ts';

export interface EventRow {
  tenant_id: string;
  environment: Environment;
  id: string;
  type: EventType;
  object_id: string;
  data: Record<string, unknown>;
  actor: EventActor | null;
  created_at: Date;
}

export const selectEvent = rowById<EventRow>('SELECT * FROM events');

const selectAllEvents = pageReader<EventRow>('SELECT * FROM events', { name: 'events_page' });

/**
 * One page, newest first: index events_page for every type (types null), events_by_type for
 * a list of types. A key that reads only some types walks events_by_type once per readable
 * type, each walk stopping after one page, and merges: the cost stays one page per type at any
 * depth.
 */
export async function selectEventPage(
  db: Queryable,
  scope: TenantScope,
  types: readonly string[] | null,
  request: PageRequest,
): Promise<EventRow[]> {
  if (types === null) return selectAllEvents(db, scope, {}, request);
  const page = keysetPage(
    [scope.tenantId, scope.environment, types],
    request.after,
    request.limit + 1,
  );
  // The outer ORDER BY reads e's columns (t has only `type`) and shares the limit parameter.
  const { rows } = await db.query<EventRow>({
    name: `events_pageTypes${page.variant}`,
    text: `SELECT e.* FROM unnest($3::text[]) AS t(type)
           CROSS JOIN LATERAL (
             SELECT * FROM events WHERE tenant_id = $1 AND environment = $2 AND type = t.type
               ${page.after}
             ${page.orderBy}) e
           ${page.orderBy}`,
    values: page.values,
  });
  return rows;
}
