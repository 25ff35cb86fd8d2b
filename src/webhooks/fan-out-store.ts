// SQL of the webhook fan-out: every event the unit of work writes gets, in the same statement,
// a delivery to each endpoint subscribed to it. Given to the unit of work's outcome statement
// by the composition root (src/composition.ts), so db/ knows nothing of webhook tables.
import type { OutboxFollower } from '../db/store.ts';

/**
 * One webhook delivery per enabled endpoint of the tenant and environment that takes each
 * event's type (partial index webhook_endpoints_enabled). Delivery ids share their event id's
 * time part; their random part is made here because the number of rows is only known to the
 * database. The tenant and environment are the statement's constants $7 and $8: PostgreSQL
 * then reads one partition of webhook_endpoints when it is partitioned by tenant, and Citus
 * can route the statement to the tenant's shard.
 */
export const webhookFanOut: OutboxFollower = {
  name: 'webhook deliveries of the events',
  sql: `INSERT INTO webhook_deliveries (tenant_id, environment, id, endpoint_id, event_id,
                                       event_type)
       SELECT q.tenant_id, q.environment,
              'wd_' || substr(q.id, 5, 8) || substr(md5(random()::text || e.id || q.id), 1, 14),
              e.id, q.id, q.type
         FROM queued q
         JOIN webhook_endpoints e
           ON e.tenant_id = q.tenant_id AND e.environment = q.environment AND NOT e.disabled
          AND (e.enabled_events @> ARRAY[q.type] OR e.enabled_events @> ARRAY['*'])
          AND e.tenant_id = $7 AND e.environment = $8`,
};
