// SQL for tenants: the accounts operators create, each with its own data in both environments.
import type { Queryable } from '../db/pool.ts';

export interface TenantRow {
  tenant_id: string;
  name: string;
  created_at: Date;
}

export async function insertTenant(db: Queryable, id: string, name: string): Promise<TenantRow> {
  const { rows } = await db.query<TenantRow>(
    'INSERT INTO tenants (tenant_id, name) VALUES ($1, $2) RETURNING *',
    [id, name],
  );
  return rows[0]!;
}

export async function selectTenants(db: Queryable): Promise<TenantRow[]> {
  const { rows } = await db.query<TenantRow>(
    'SELECT * FROM tenants ORDER BY created_at, tenant_id',
  );
  return rows;
}

export async function selectTenant(
  db: Queryable,
  tenantId: string,
): Promise<TenantRow | undefined> {
  const { rows } = await db.query<TenantRow>('SELECT * FROM tenants WHERE tenant_id = $1', [
    tenantId,
  ]);
  return rows[0];
}

export async function renameTenant(
  db: Queryable,
  tenantId: string,
  name: string,
): Promise<TenantRow | undefined> {
  const { rows } = await db.query<TenantRow>(
    'UPDATE tenants SET name = $2 WHERE tenant_id = $1 RETURNING *',
    [tenantId, name],
  );
  return rows[0];
}
