// An API under test: a checkout's code (this one or a baseline's), a database of its own seeded
// with the data set, and the API process started from that checkout as its `npm start` runs it.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { API_READY, apiEnv, startChild } from './child.ts';
import { dropDatabase, freshDatabase, queryOnce } from './database.ts';
import { customerId, invoiceId, type TenantPlan } from './dataset.ts';
import { makeTenants, startCommand, type TenantKeys } from './project.ts';
import { seed, type SeedReport } from './seed.ts';

export interface Api {
  name: 'current' | 'baseline';
  /** The checkout's root folder. */
  root: string;
  database: string;
  tenants: TenantKeys[];
  seeding: SeedReport;
  child: ChildProcess;
  origin: string;
  /** Further instances of this API on its database (the instances scenario), none by default. */
  more: { child: ChildProcess; origin: string }[];
  /** Log lines the API said it dropped because its standard output was not drained. */
  droppedLogLines: number;
}

interface Seeded {
  url: string;
  tenants: TenantKeys[];
  seeding: SeedReport;
}

/**
 * A fresh database `database` on the server, migrated by the checkout at `root`, with its
 * tenants and keys made by that checkout's service functions and the rest of the data set in
 * bulk SQL. `cleanups` gets the step that drops it.
 */
export async function seedDatabase(
  serverUrl: string,
  database: string,
  root: string,
  plan: TenantPlan[],
  log: (message: string) => void,
  cleanups: (() => Promise<unknown> | void)[],
): Promise<Seeded> {
  const url = await freshDatabase(serverUrl, database);
  cleanups.push(() => dropDatabase(serverUrl, database));
  log(`${plan.length} tenants with two keys each (${root}) …`);
  let started = performance.now();
  const tenants = await makeTenants(root, url, plan.length);
  const keys = (performance.now() - started) / 1000;
  started = performance.now();
  const times = await seed(url, plan, tenants, log);
  const [counts] = await queryOnce<{ lines: string }>(
    url,
    'SELECT count(*) AS lines FROM invoice_lines',
  );
  const seeding: SeedReport = {
    ...times,
    keys,
    total: keys + (performance.now() - started) / 1000,
    lineRows: Number(counts!.lines),
  };
  log(`seeded in ${seeding.total.toFixed(0)} s`);
  return { url, tenants, seeding };
}

/** Starts the API of the checkout at `root` on the seeded database; `cleanups` stops it. */
export async function startApi(
  name: Api['name'],
  root: string,
  database: string,
  seeded: Seeded,
  cleanups: (() => Promise<unknown> | void)[],
  instances = 1,
): Promise<Api> {
  const secretsKey = randomBytes(32).toString('base64');
  const launch = async (instance: number) => {
    const { flags, entry } = await startCommand(root);
    const dataDir = await mkdtemp(join(tmpdir(), `billing-bench-${name}-${instance}-`));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    // BENCH_API_FLAGS: Node flags for the API alone, e.g. `--cpu-prof --cpu-prof-dir=data/prof`.
    const extra = (process.env.BENCH_API_FLAGS ?? '').split(' ').filter((f) => f !== '');
    const started = await startChild(
      process.execPath,
      [...flags, ...extra, entry],
      // Further instances serve requests only: one runs the background jobs, as in production.
      {
        ...apiEnv(seeded.url, dataDir, secretsKey),
        ...(instance > 0 ? { RUN_WORKER: 'false' } : {}),
      },
      API_READY,
      root,
    );
    cleanups.push(() => void started.child.kill('SIGTERM'));
    return { child: started.child, origin: started.match[1]! };
  };
  const { child, origin } = await launch(0);
  const api: Api = {
    name,
    root,
    database,
    tenants: seeded.tenants,
    seeding: seeded.seeding,
    child,
    origin,
    more: [],
    droppedLogLines: 0,
  };
  for (let i = 1; i < instances; i++) api.more.push(await launch(i));
  // The API drops log lines, and says how many, when its standard output is not drained in
  // time: the run reports them.
  child.stdout?.on('data', (chunk: Buffer) => {
    if (!chunk.includes('log lines dropped')) return;
    for (const m of chunk.toString().matchAll(/"dropped":(\d+)/g)) {
      api.droppedLogLines += Number(m[1]);
    }
  });
  await checkSeededData(api);
  return api;
}

export function authorization(tenant: TenantKeys): Record<string, string> {
  return { authorization: `Bearer ${tenant.secrets[0]}` };
}

/** The API serves the seeded rows under the ids the load generator will ask for. */
async function checkSeededData(api: Api): Promise<void> {
  const tenant = 0;
  for (const path of [
    `/v1/customers/${customerId(tenant, 1)}`,
    `/v1/invoices/${invoiceId(tenant, 2)}`,
  ]) {
    const answer = await fetch(`${api.origin}${path}`, {
      headers: authorization(api.tenants[tenant]!),
    });
    if (answer.status !== 200) {
      throw new Error(`${api.name}: GET ${path} answered ${answer.status}: ${await answer.text()}`);
    }
  }
}
