// SQL of the console's webhooks page: the deliveries of every endpoint of the tenant, newest
// first, and one delivery with its endpoint and attempts. The deliveries are indexed per
// endpoint (webhook_deliveries_page: tenant, environment, endpoint, created_at, id), so a page
// walks each endpoint's index range backwards from the position, at most one page from each,
// and keeps the newest of them: a tenant has a handful of endpoints, never a scan of its
// deliveries. The last attempt's response code is read by the attempts' primary key; the
// attempts themselves come from the webhooks service.
import type { Queryable } from '../db/pool.ts';
import { allRows, firstRow } from '../db/rows.ts';
import type { PagePosition } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';

export interface ListedDelivery {
  id: string;
  endpoint_id: string;
  url: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  attempt_count: number;
  next_attempt_at: Date;
  created_at: Date;
  endpoint_disabled: boolean;
  response_status: number | null;
}

const LAST_RESPONSE = `(SELECT a.response_status FROM webhook_attempts a
   WHERE a.tenant_id = d.tenant_id AND a.environment = d.environment AND a.delivery_id = d.id
   ORDER BY a.attempt DESC LIMIT 1) AS response_status`;

const FIELDS = `d.id, d.endpoint_id, e.url, d.event_id, d.event_type, d.status, d.attempt_count,
  d.next_attempt_at, d.created_at, e.disabled AS endpoint_disabled, ${LAST_RESPONSE}`;

function recentSql(after: boolean): string {
  const position = after ? 'AND (d.created_at, d.id) < ($4, $5)' : '';
  return `SELECT ${FIELDS}
            FROM webhook_endpoints e
            CROSS JOIN LATERAL (
              SELECT * FROM webhook_deliveries d
               WHERE d.tenant_id = e.tenant_id AND d.environment = e.environment
                 AND d.endpoint_id = e.id ${position}
               ORDER BY d.created_at DESC, d.id DESC LIMIT $3) d
           WHERE e.tenant_id = $1 AND e.environment = $2
           ORDER BY d.created_at DESC, d.id DESC LIMIT $3`;
}

/** `limit` deliveries before `after` (or the newest), newest first. */
export const selectRecentDeliveries = (
  db: Queryable,
  { tenantId, environment }: TenantScope,
  after: PagePosition | null,
  limit: number,
) =>
  allRows<ListedDelivery>(db, {
    name: after ? 'console_deliveries_after' : 'console_deliveries_first',
    text: recentSql(after !== null),
    values: after
      ? [tenantId, environment, limit, after.createdAt, after.id]
      : [tenantId, environment, limit],
  });

/** One delivery with its endpoint (primary keys). */
export const selectDeliveryWithEndpoint = (db: Queryable, scope: TenantScope, id: string) =>
  firstRow<ListedDelivery>(db, {
    name: 'console_delivery',
    text: `SELECT ${FIELDS}
             FROM webhook_deliveries d
             JOIN webhook_endpoints e ON e.tenant_id = d.tenant_id
              AND e.environment = d.environment AND e.id = d.endpoint_id
            WHERE d.tenant_id = $1 AND d.environment = $2 AND d.id = $3`,
    values: [scope.tenantId, scope.environment, id],
  });
