// SQL for test clocks. Every query takes the tenant and the environment, except the search for
// advances a crash cut short (index test_clocks_advancing).
import type { Queryable } from '../db/pool.ts';
import { rowById } from '../db/row-by-id.ts';
import { pageReader } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';

export interface TestClockRow {
  tenant_id: string;
  environment: 'test';
  id: string;
  name: string | null;
  frozen_time: Date;
  status: 'ready' | 'advancing';
  advance_to: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const selectTestClock = rowById<TestClockRow>('SELECT * FROM test_clocks');

export const selectTestClockPage = pageReader<TestClockRow>('SELECT * FROM test_clocks');

export async function insertTestClock(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: { name: string | null; frozenTime: Date },
): Promise<TestClockRow> {
  const { rows } = await db.query<TestClockRow>(
    `INSERT INTO test_clocks (tenant_id, environment, id, name, frozen_time)
     VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [scope.tenantId, scope.environment, id, fields.name, fields.frozenTime],
  );
  return rows[0]!;
}

/** Moves the clock: its time, and its target while it advances (null once ready). */
export async function moveTestClock(
  db: Queryable,
  scope: TenantScope,
  id: string,
  frozenTime: Date,
  advanceTo: Date | null,
): Promise<TestClockRow> {
  const { rows } = await db.query<TestClockRow>(
    `UPDATE test_clocks
        SET frozen_time = $4, advance_to = $5,
            status = CASE WHEN $5::timestamptz IS NULL THEN 'ready' ELSE 'advancing' END,
            updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING *`,
    [scope.tenantId, scope.environment, id, frozenTime, advanceTo],
  );
  return rows[0]!;
}

/**
 * Clocks whose advance is under way and has not moved for `idleSeconds` (database time), across
 * tenants: a crash may have cut one short.
 */
export async function selectAdvancingClocks(
  db: Queryable,
  idleSeconds: number,
  limit: number,
): Promise<Pick<TestClockRow, 'tenant_id' | 'environment' | 'id'>[]> {
  const { rows } = await db.query<TestClockRow>(
    `SELECT tenant_id, environment, id FROM test_clocks
      WHERE status = 'advancing' AND updated_at <= clock_timestamp() - make_interval(secs => $1)
      ORDER BY updated_at LIMIT $2`,
    [idleSeconds, limit],
  );
  return rows;
}

/**
 * Deletes the clock with its customers' subscriptions and draft invoices; the customers and
 * their issued invoices stay, on real time.
 */
export async function deleteTestClock(db: Queryable, scope: TenantScope, id: string) {
  const values = [scope.tenantId, scope.environment, id];
  const where = 'tenant_id = $1 AND environment = $2 AND test_clock_id = $3';
  await db.query(
    `DELETE FROM invoices WHERE tenant_id = $1 AND environment = $2 AND status = 'draft'
        AND customer_id IN (SELECT id FROM customers WHERE ${where})`,
    values,
  );
  await db.query(`DELETE FROM subscriptions WHERE ${where}`, values);
  await db.query(`UPDATE customers SET test_clock_id = NULL WHERE ${where}`, values);
  await db.query(
    'DELETE FROM test_clocks WHERE tenant_id = $1 AND environment = $2 AND id = $3',
    values,
  );
}
