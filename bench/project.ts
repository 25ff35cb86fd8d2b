// The little the benchmark takes from a checkout's own code, loaded from that checkout (this
// one, or a baseline's worktree): its migrations, and its tenants and API keys, made by its own
// service functions. Secrets are stored hashed, so a key is usable only if the benchmark made
// it and kept the secret it was shown once. Everything else goes over HTTP or plain SQL.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface TenantKeys {
  tenantId: string;
  /** Two secrets of test keys holding every scope. */
  secrets: [string, string];
}

interface Pool {
  end(): Promise<void>;
}

/**
 * Migrates the empty database `url` with the code of the checkout at `root`, then makes
 * `count` tenants named after their plan index, each with two keys.
 */
export async function makeTenants(root: string, url: string, count: number): Promise<TenantKeys[]> {
  const load = (file: string) => import(pathToFileURL(join(root, 'src', file)).href);
  const { createPool } = (await load('db/pool.ts')) as {
    createPool(url: string, max: number): Pool;
  };
  const { migrate } = (await load('db/migrate.ts')) as { migrate(db: Pool): Promise<unknown> };
  const { SCOPES } = (await load('keys/scopes.ts')) as { SCOPES: readonly string[] };
  const service = (await load('keys/service.ts')) as {
    createTenant(db: Pool, name: string): Promise<{ id: string }>;
    createApiKey(
      db: Pool,
      input: { tenantId: string; environment: 'test'; scopes: readonly string[]; name: string },
      actor: null,
    ): Promise<{ secret: string }>;
  };
  const db = createPool(url, 4);
  try {
    await migrate(db);
    const tenants: TenantKeys[] = [];
    for (let index = 0; index < count; index++) {
      const tenant = await service.createTenant(db, `Bench tenant ${index}`);
      const key = (name: string) =>
        service.createApiKey(
          db,
          { tenantId: tenant.id, environment: 'test', scopes: SCOPES, name },
          null,
        );
      const [a, b] = await Promise.all([key('bench a'), key('bench b')]);
      tenants.push({ tenantId: tenant.id, secrets: [a.secret, b.secret] });
    }
    return tenants;
  } finally {
    await db.end();
  }
}
