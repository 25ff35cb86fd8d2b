// First start on the embedded database: a tenant and one test key holding every scope, so a
// new user can call the API at once.
import type { Db } from '../db/pool.ts';
import { SCOPES } from './scopes.ts';
import { lockFirstStart, unlockFirstStart } from './store.ts';
import { writtenValue } from '../db/unit-of-work.ts';
import { createTenant, listTenants } from '../tenants/service.ts';
import { createApiKey, operator, type IssuedApiKey } from './service.ts';

export async function bootstrapFirstTenant(db: Db): Promise<IssuedApiKey | null> {
  // An advisory lock, so two instances starting together create one tenant.
  const client = await db.connect();
  try {
    await lockFirstStart(client);
    if ((await listTenants(db)).length > 0) return null;
    const tenant = await createTenant(db, 'My company');
    const written = await createApiKey(
      db,
      { actor: operator(tenant.id, 'test') },
      { scopes: [...SCOPES], name: 'Created on first start' },
    );
    return writtenValue(written);
  } finally {
    await unlockFirstStart(client).catch(() => undefined);
    client.release();
  }
}
