// SQL for meters. Every query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import { rowById, rowsByIds } from '../db/row-by-id.ts';
import { pageReader } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { Aggregation } from './schemas.ts';

export interface MeterRow {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  event_name: string;
  aggregation: Aggregation;
  value_property: string | null;
  display_name: string;
  status: 'active' | 'inactive';
  created_at: Date;
  updated_at: Date;
}

// Named columns, not *: a prepared statement's result must not change shape under a migration.
const METER_COLUMNS = `tenant_id, environment, id, event_name, aggregation, value_property,
  display_name, status, created_at, updated_at`;

export async function insertMeter(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: Pick<
    MeterRow,
    'event_name' | 'aggregation' | 'value_property' | 'display_name' | 'status'
  >,
): Promise<MeterRow> {
  const { rows } = await db.query<MeterRow>(
    `INSERT INTO meters (tenant_id, environment, id, event_name, aggregation, value_property,
                         display_name, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${METER_COLUMNS}`,
    [
      scope.tenantId,
      scope.environment,
      id,
      fields.event_name,
      fields.aggregation,
      fields.value_property,
      fields.display_name,
      fields.status,
    ],
  );
  return rows[0]!;
}

export const selectMeter = rowById<MeterRow>(`SELECT ${METER_COLUMNS} FROM meters`, {
  lock: 'FOR NO KEY UPDATE',
});

/** The meters among `ids`; unknown ids are left out. */
export const selectMeters = rowsByIds<MeterRow>(`SELECT ${METER_COLUMNS} FROM meters`);

/** The active meters of these event names: what a batch's events are checked against. */
export async function selectActiveMetersOf(
  db: Queryable,
  scope: TenantScope,
  eventNames: readonly string[],
): Promise<MeterRow[]> {
  // Index meters_by_event.
  const { rows } = await db.query<MeterRow>({
    name: 'usage_active_meters',
    text: `SELECT ${METER_COLUMNS} FROM meters
            WHERE tenant_id = $1 AND environment = $2 AND event_name = ANY($3::text[])
              AND status = 'active'`,
    values: [scope.tenantId, scope.environment, eventNames],
  });
  return rows;
}

export async function updateMeter(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: Pick<MeterRow, 'display_name' | 'status'>,
): Promise<MeterRow> {
  const { rows } = await db.query<MeterRow>(
    `UPDATE meters SET display_name = $4, status = $5, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${METER_COLUMNS}`,
    [scope.tenantId, scope.environment, id, fields.display_name, fields.status],
  );
  return rows[0]!;
}

/** One page, newest first: index meters_page. */
export const selectMeterPage = pageReader<MeterRow>(`SELECT ${METER_COLUMNS} FROM meters`);
