// SQL for the event outbox.
import type { Queryable } from '../db/pool.ts';
import type { Environment } from '../tenancy.ts';

export interface EventRow {
  tenant_id: string;
  environment: Environment;
  id: string;
  type: string;
  object_id: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export async function insertEvent(
  db: Queryable,
  event: {
    tenantId: string;
    environment: Environment;
    id: string;
    type: string;
    objectId: string;
    data: Record<string, unknown>;
  },
): Promise<EventRow> {
  const { rows } = await db.query<EventRow>(
    `INSERT INTO events (tenant_id, environment, id, type, object_id, data)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [event.tenantId, event.environment, event.id, event.type, event.objectId, event.data],
  );
  return rows[0]!;
}
