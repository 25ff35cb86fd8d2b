// The console scenario (`BENCH_ONLY=console npm run bench`, bench/README.md "Console"): one
// tenant of 100,000 customers, 50,000 invoices (the data set's rules, bench/seed.ts) and 30,000
// subscriptions, a console user signed in over HTTP, and every console page asked for in turn,
// one request at a time, as a person clicks: p50 and p99 per page. A page that answers
// something else than 200 (not built yet on this branch) is listed as not present.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { API_READY, apiEnv, startChild } from './child.ts';
import { dropDatabase, freshDatabase } from './database.ts';
import { customerId, invoiceId, INVOICES_PER_CUSTOMER } from './dataset.ts';
import { makeTenants, startCommand } from './project.ts';
import { seed } from './seed.ts';
import { systemClock } from '../src/clock.ts';
import { createConsoleUsers } from '../src/console/users.ts';
import { createPool } from '../src/db/pool.ts';
import { HostedLinks } from '../src/hosted/links.ts';
import { SecretsKeyring } from '../src/secrets/keyring.ts';

const CUSTOMERS = Number(process.env.BENCH_CONSOLE_CUSTOMERS ?? 100_000);
/** One customer in three subscribes: 80 % active, 10 % past due, 10 % canceled. */
const SUBSCRIBERS_EVERY = 3;
const REQUESTS = Number(process.env.BENCH_CONSOLE_REQUESTS ?? 50);
const WARM_UP = 5;
const PASSWORD = 'bench console password';

export interface ConsolePageFigure {
  page: string;
  path: string;
  p50: number | null;
  p99: number | null;
  status: number;
}

/** The console's pages: each one's path on the seeded tenant (ids by the data set's rules). */
function pages(subscriptionId: string): [string, string][] {
  return [
    ['overview', '/console'],
    ['customers', '/console/customers'],
    ['search, a name prefix', '/console/customers?q=Customer%2099'],
    ['a customer', `/console/customers/${customerId(0, 4)}`],
    ['search, an e-mail prefix', '/console/customers?q=c7777%40t000'],
    ['invoices', '/console/invoices'],
    ['an invoice', `/console/invoices/${invoiceId(0, 2)}`],
    ['subscriptions', '/console/subscriptions'],
    ['a subscription', `/console/subscriptions/${subscriptionId}`],
    ['reports', '/console/reports'],
    ['reports, a quarter', '/console/reports?period=q4&year=2025'],
    ['webhooks', '/console/webhooks'],
    ['events', '/console/events'],
    ['settings', '/console/settings'],
    ['API keys', '/console/settings/api-keys'],
    ['users', '/console/settings/users'],
  ];
}

// 30,000 subscriptions of one monthly price, each with one item, in bulk SQL (no triggers, as
// bench/seed.ts loads). Never due within the run: the API runs no worker here anyway.
const SUBSCRIPTIONS = `INSERT INTO subscriptions (tenant_id, environment, id, customer_id, currency,
    status, interval, interval_count, time_zone, billing_cycle_anchor, start_at,
    current_period_start, current_period_end, proration_behavior, canceled_at, ended_at,
    next_action_at, created_at, updated_at)
  SELECT $1, 'test', 'sub_t000_' || lpad(n::text, 8, '0'),
         'cus_t000_' || lpad((n * ${SUBSCRIBERS_EVERY})::text, 8, '0'), 'eur',
         CASE n % 10 WHEN 8 THEN 'past_due' WHEN 9 THEN 'canceled' ELSE 'active' END,
         'month', 1, 'UTC', timestamptz '2025-01-01 00:00:00+00', timestamptz '2025-01-01 00:00:00+00',
         date_trunc('month', now()), date_trunc('month', now()) + interval '1 month', 'none',
         CASE WHEN n % 10 = 9 THEN now() END, CASE WHEN n % 10 = 9 THEN now() END,
         CASE WHEN n % 10 <> 9 THEN timestamptz '2100-01-01 00:00:00+00' END,
         timestamptz '2025-01-01 00:00:00+00' + n * interval '10 minutes', now()
    FROM generate_series(1, $2::int) AS n`;
const ITEMS = `INSERT INTO subscription_items (tenant_id, environment, subscription_id, id, price_id,
    quantity, position)
  SELECT $1, 'test', 'sub_t000_' || lpad(n::text, 8, '0'), 'si_t000_' || lpad(n::text, 8, '0'),
         $3, 1 + n % 5, 0
    FROM generate_series(1, $2::int) AS n`;

/** The q-th percentile of sorted values (nearest rank). */
function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((q / 100) * sorted.length) - 1)]!;
}

/** A browser's cookies, kept between requests. */
class Session {
  readonly cookies = new Map<string, string>();
  readonly origin: string;
  constructor(origin: string) {
    this.origin = origin;
  }
  async request(path: string, form?: Record<string, string>): Promise<Response> {
    const answer = await fetch(`${this.origin}${path}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of answer.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return answer;
  }
  async submit(from: string, to: string, fields: Record<string, string>): Promise<Response> {
    const page = await (await this.request(from)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    return this.request(to, { _csrf: csrf, ...fields });
  }
}

/**
 * Seeds, starts the API, signs in and times every page; then stops its API and drops its
 * database, so that nothing of it runs beside the scenarios measured after it.
 */
export async function benchConsole(
  serverUrl: string,
  log: (message: string) => void,
): Promise<ConsolePageFigure[]> {
  const cleanups: (() => Promise<unknown> | void)[] = [];
  try {
    return await measure(serverUrl, log, cleanups);
  } finally {
    for (const step of cleanups.reverse()) await Promise.resolve(step()).catch(() => undefined);
  }
}

async function measure(
  serverUrl: string,
  log: (message: string) => void,
  cleanups: (() => Promise<unknown> | void)[],
): Promise<ConsolePageFigure[]> {
  const database = 'billing_bench_console';
  const url = await freshDatabase(serverUrl, database);
  cleanups.push(() => dropDatabase(serverUrl, database));
  log(`console: one tenant of ${CUSTOMERS} customers …`);
  const [tenant] = await makeTenants(process.cwd(), url, 1);
  const plan = [
    {
      index: 0,
      customers: CUSTOMERS,
      invoices: Math.round(CUSTOMERS * INVOICES_PER_CUSTOMER),
      weight: 1,
    },
  ];
  await seed(url, plan, [tenant!], log);
  const subscriptions = Math.floor(CUSTOMERS / SUBSCRIBERS_EVERY);

  const { flags, entry } = await startCommand(process.cwd());
  const dataDir = await mkdtemp(join(tmpdir(), 'billing-bench-console-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const api = await startChild(
    process.execPath,
    [...flags, entry],
    { ...apiEnv(url, dataDir), RUN_WORKER: 'false' },
    API_READY,
  );
  cleanups.push(() => void api.child.kill('SIGTERM'));
  const origin = api.match[1]!;

  // A product and its monthly price through the API, then the subscriptions in bulk.
  const auth = {
    authorization: `Bearer ${tenant!.secrets[0]}`,
    'content-type': 'application/json',
  };
  const post = async (path: string, body: unknown) => {
    const answer = await fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify(body),
    });
    if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as { id: string };
  };
  const product = await post('/v1/products', { name: 'Pro plan' });
  const price = await post('/v1/prices', {
    productId: product.id,
    currency: 'eur',
    type: 'recurring',
    unitAmount: 2900,
    recurring: { interval: 'month' },
  });
  const bulk = new pg.Client({
    connectionString: url,
    options: '-c session_replication_role=replica',
  });
  await bulk.connect();
  try {
    await bulk.query(SUBSCRIPTIONS, [tenant!.tenantId, subscriptions]);
    await bulk.query(ITEMS, [tenant!.tenantId, subscriptions, price.id]);
    await bulk.query('VACUUM (ANALYZE) subscriptions');
    await bulk.query('VACUUM (ANALYZE) subscription_items');
  } finally {
    await bulk.end();
  }
  log(`console: ${subscriptions} subscriptions of price ${price.id}`);

  // A console user made by the users service (its password is all sign-in needs), signed in
  // through the form; the data are in the test environment.
  const db = createPool(url, 2);
  try {
    const secrets = new SecretsKeyring(Buffer.alloc(32, 7));
    const users = createConsoleUsers({
      db,
      clock: systemClock,
      secrets,
      links: new HostedLinks(secrets, () => origin),
    });
    const invitation = await users.invite(tenant!.tenantId, {
      email: 'bench@example.com',
      role: 'admin',
    });
    await users.accept(invitation.url.slice(invitation.url.lastIndexOf('/') + 1), PASSWORD);
  } finally {
    await db.end();
  }
  const session = new Session(origin.replace('127.0.0.1', 'localhost'));
  const signIn = await session.submit('/console/sign-in', '/console/sign-in', {
    tenant: tenant!.tenantId,
    email: 'bench@example.com',
    password: PASSWORD,
  });
  if (signIn.status !== 303) throw new Error(`console sign-in answered ${signIn.status}`);
  await session.submit('/console', '/console/environment', { environment: 'test', back: '/' });

  const figures: ConsolePageFigure[] = [];
  for (const [page, path] of pages(`sub_t000_${String(1).padStart(8, '0')}`)) {
    const first = await session.request(path);
    await first.arrayBuffer();
    if (first.status !== 200) {
      figures.push({ page, path, p50: null, p99: null, status: first.status });
      log(`console: ${page} (${path}) answers ${first.status}: not present`);
      continue;
    }
    const times: number[] = [];
    for (let i = 0; i < WARM_UP + REQUESTS; i++) {
      const started = performance.now();
      const answer = await session.request(path);
      await answer.arrayBuffer();
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
      if (i >= WARM_UP) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const figure = {
      page,
      path,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      status: 200,
    };
    figures.push(figure);
    log(`console: ${page}: p50 ${figure.p50.toFixed(1)} ms, p99 ${figure.p99.toFixed(1)} ms`);
  }
  return figures;
}

/** The figures as the table bench/README.md shows. */
export function consoleTable(figures: ConsolePageFigure[]): string {
  const rows = figures.map((f) =>
    f.p50 === null
      ? `| ${f.page} | \`${f.path}\` | not present (${f.status}) | |`
      : `| ${f.page} | \`${f.path}\` | ${f.p50.toFixed(1)} | ${f.p99!.toFixed(1)} |`,
  );
  return ['| Page | Path | p50 ms | p99 ms |', '| --- | --- | ---: | ---: |', ...rows].join('\n');
}
