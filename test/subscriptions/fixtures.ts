// What the subscription tests share: a product with a recurring price, a customer on a test
// clock, advancing the clock until it is ready, and a subscription's invoices in order.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { client, createTenantWithKey, waitFor } from '../helpers.ts';
import { createScratchDatabase } from '../reliability/databases.ts';
import { killChild, startChildServer, type ChildServer } from '../reliability/processes.ts';
import type { Api } from '../invoices/fixtures.ts';

export async function createPrice(
  api: Api,
  options: {
    unitAmount?: number;
    interval?: 'day' | 'week' | 'month' | 'year';
    intervalCount?: number;
    currency?: string;
    name?: string;
    taxRates?: string[];
  } = {},
): Promise<{ id: string; productId: string }> {
  const product = await api.post('/v1/products', {
    name: options.name ?? 'Pro plan',
    ...(options.taxRates ? { taxRates: options.taxRates } : {}),
  });
  assert.equal(product.status, 201, product.text);
  const price = await api.post('/v1/prices', {
    productId: product.body.id,
    currency: options.currency ?? 'eur',
    type: 'recurring',
    recurring: {
      interval: options.interval ?? 'month',
      intervalCount: options.intervalCount ?? 1,
      usage: 'licensed',
    },
    billingScheme: 'per_unit',
    unitAmount: options.unitAmount ?? 3000,
  });
  assert.equal(price.status, 201, price.text);
  return price.body;
}

export async function createClock(api: Api, frozenTime: string): Promise<{ id: string }> {
  const clock = await api.post('/v1/test-clocks', { name: 'test', frozenTime });
  assert.equal(clock.status, 201, clock.text);
  return clock.body;
}

export async function clockCustomer(
  api: Api,
  clockId: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string }> {
  const res = await api.post('/v1/customers', {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    testClockId: clockId,
    ...body,
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Advances the clock and waits until it is ready again. */
export async function advance(api: Api, clockId: string, frozenTime: string) {
  const res = await api.post(`/v1/test-clocks/${clockId}/advance`, { frozenTime });
  assert.equal(res.status, 202, res.text);
  return waitFor(
    async () => {
      const clock = await api.get(`/v1/test-clocks/${clockId}`);
      return clock.body.status === 'ready' ? clock.body : null;
    },
    `test clock ${clockId} to reach ${frozenTime}`,
    60_000,
  );
}

export interface ListedInvoice {
  id: string;
  status: string;
  number: string | null;
  billingReason: string;
  total: number;
  createdAt: string;
  lines: { amount: number; description: string; period: { start: string; end: string } }[];
}

/** The subscription's invoices, oldest first. */
export async function invoicesOf(api: Api, subscriptionId: string): Promise<ListedInvoice[]> {
  const res = await api.get(`/v1/invoices?subscriptionId=${subscriptionId}&limit=100`);
  assert.equal(res.status, 200, res.text);
  return (res.body.data as ListedInvoice[]).reverse();
}

/** The period starts of a subscription's invoices' first lines, oldest first. */
export async function periodsOf(api: Api, subscriptionId: string) {
  const invoices = await invoicesOf(api, subscriptionId);
  return invoices.map((i) => [i.lines[0]!.period.start, i.lines[0]!.period.end]);
}

/**
 * A crash test's scene: a scratch database, a server in a child process on it (`first`; `start`
 * starts more), a tenant with a key and its client. After the test, every server is killed and
 * the database dropped.
 */
export async function crashScene() {
  const database = await createScratchDatabase(process.env.TEST_DATABASE_URL!);
  const servers: ChildServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => killChild(s)));
    await database.drop();
  });
  const start = async () => {
    const server = await startChildServer(database.url);
    servers.push(server);
    return server;
  };
  const first = await start();
  const key = await createTenantWithKey(database.db);
  return { database, start, first, key, api: client(first.url, key.secret) };
}
