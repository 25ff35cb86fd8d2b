// Tenants: created and renamed by operators (the CLI), read by every module that shows the
// tenant's name. A new tenant gets its settings in both environments in the same transaction.
import type { Db, Queryable } from '../db/pool.ts';
import { unitOfWork, writtenValue } from '../db/unit-of-work.ts';
import { ParameterInvalidError, ResourceMissingError } from '../errors.ts';
import { newId } from '../ids.ts';
import { insertSettings } from '../settings/service.ts';
import { operator } from '../tenancy.ts';
import {
  insertTenant,
  renameTenant,
  selectTenant,
  selectTenants,
  type TenantRow,
} from './store.ts';

export interface Tenant {
  id: string;
  name: string;
  createdAt: string;
}

function tenantFromRow(row: TenantRow): Tenant {
  return { id: row.tenant_id, name: row.name, createdAt: row.created_at.toISOString() };
}

export async function createTenant(db: Db, name: string): Promise<Tenant> {
  if (name.trim() === '') throw new ParameterInvalidError('name', 'A tenant needs a name.');
  const id = newId('ten');
  const written = await unitOfWork(db, { actor: operator(id) }, async ({ tx }) => {
    const tenant = tenantFromRow(await insertTenant(tx, id, name));
    await insertSettings(tx, id);
    return tenant;
  });
  return writtenValue(written);
}

export async function listTenants(db: Db): Promise<Tenant[]> {
  return (await selectTenants(db)).map(tenantFromRow);
}

/** The tenant, or null if there is none with this id. */
export async function findTenant(db: Queryable, tenantId: string): Promise<Tenant | null> {
  const row = await selectTenant(db, tenantId);
  return row ? tenantFromRow(row) : null;
}

export async function getTenant(db: Queryable, tenantId: string): Promise<Tenant> {
  const tenant = await findTenant(db, tenantId);
  if (!tenant) throw new ResourceMissingError('tenant', tenantId);
  return tenant;
}

export async function updateTenantName(db: Db, tenantId: string, name: string): Promise<Tenant> {
  if (name.trim() === '') throw new ParameterInvalidError('name', 'A tenant needs a name.');
  const written = await unitOfWork(db, { actor: operator(tenantId) }, async ({ tx }) => {
    const row = await renameTenant(tx, tenantId, name);
    if (!row) throw new ResourceMissingError('tenant', tenantId);
    return tenantFromRow(row);
  });
  return writtenValue(written);
}
