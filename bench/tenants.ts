// Run by project.ts in a checkout's folder, the way that checkout runs its own code: migrates
// the database and makes the tenants with two keys each through the checkout's own service
// functions, and prints them as JSON. A process of its own because a checkout's code may need
// a loader the benchmark does not (an older one ran its TypeScript through tsx).
//   node [the checkout's flags] bench/tenants.ts <database url> <count>
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Pool {
  end(): Promise<void>;
}
interface IssuedKey {
  secret: string;
}
// createApiKey's signature changed when writes moved into a unit of work; both are served.
interface KeyService {
  createTenant(db: Pool, name: string): Promise<{ id: string }>;
  createApiKey(db: Pool, ...args: unknown[]): Promise<IssuedKey | { value: IssuedKey }>;
  /** Present in the unit-of-work version: the operator as the actor of a write. */
  operator?: (tenantId: string, environment: 'test') => unknown;
}

const [url, count] = [process.argv[2]!, Number(process.argv[3])];
const load = (file: string) => import(pathToFileURL(join(process.cwd(), 'src', file)).href);
const { createPool } = (await load('db/pool.ts')) as { createPool(url: string, max: number): Pool };
const { migrate } = (await load('db/migrate.ts')) as { migrate(db: Pool): Promise<unknown> };
const { SCOPES } = (await load('keys/scopes.ts')) as { SCOPES: readonly string[] };
// A checkout with a tenants module makes its tenants there; an older one, in keys.
const keys = (await load('keys/service.ts')) as KeyService;
const tenants = (await load('tenants/service.ts').catch(() => keys)) as Pick<
  KeyService,
  'createTenant'
>;
const service: KeyService = { ...keys, createTenant: tenants.createTenant };
// A checkout whose composition root gives the unit of work the webhook fan-out (it follows
// the outbox) wants it loaded before the first write, as every process of its own loads it.
await load('composition.ts').catch(() => undefined);

async function createKey(db: Pool, tenantId: string, name: string): Promise<string> {
  const issued = service.operator
    ? await service.createApiKey(
        db,
        { actor: service.operator(tenantId, 'test') },
        { scopes: SCOPES, name },
      )
    : await service.createApiKey(db, { tenantId, environment: 'test', scopes: SCOPES, name }, null);
  return ('value' in issued ? issued.value : issued).secret;
}

const db = createPool(url, 4);
try {
  await migrate(db);
  const tenants = [];
  for (let index = 0; index < count; index++) {
    const tenant = await service.createTenant(db, `Bench tenant ${index}`);
    const secrets = await Promise.all([
      createKey(db, tenant.id, 'bench a'),
      createKey(db, tenant.id, 'bench b'),
    ]);
    tenants.push({ tenantId: tenant.id, secrets });
  }
  console.log(JSON.stringify(tenants));
} finally {
  await db.end();
}
process.exit(0);
