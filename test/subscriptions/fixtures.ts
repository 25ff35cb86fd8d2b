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

export const BOUNDARY = '2027-02-01T00:00:00.000Z';
/** An hour past BOUNDARY: the run has made the boundary's invoices and, with no grace, issued them. */
export const PAST_BOUNDARY = '2027-02-01T01:00:00.000Z';

/**
 * A boundary of the billing run as the benchmark makes it (bench/README.md, "Billing run"):
 * `count` subscriptions on one test clock of its own, anchored on BOUNDARY with a free stub
 * until then, of four kinds in turn — a base price; the base and 3 seats; the base and metered
 * calls; 12 seats and calls — half of them sending their invoices by e-mail (autoSend), the
 * products taxed at 19 % VAT, no grace period. Advancing the clock to PAST_BOUNDARY makes and
 * issues one invoice per subscription.
 */
export async function boundaryScene(api: Api, count: number): Promise<{ clockId: string }> {
  const settings = await api.patch('/v1/settings', { invoiceGraceMinutes: 0 });
  assert.equal(settings.status, 200, settings.text);
  const vat = await api.post('/v1/tax-rates', {
    displayName: 'VAT',
    inclusive: false,
    percentage: 19,
  });
  assert.equal(vat.status, 201, vat.text);
  const taxRates = [vat.body.id as string];
  const base = await createPrice(api, { unitAmount: 2500, name: 'Base', taxRates });
  const seats = await createPrice(api, { unitAmount: 900, name: 'Seats', taxRates });
  const meter = await api.post('/v1/meters', {
    eventName: 'api_call',
    aggregation: 'sum',
    valueProperty: 'calls',
    displayName: 'API calls',
  });
  assert.equal(meter.status, 201, meter.text);
  const callsProduct = await api.post('/v1/products', { name: 'API calls', taxRates });
  const calls = await api.post('/v1/prices', {
    productId: callsProduct.body.id,
    currency: 'eur',
    type: 'recurring',
    recurring: { interval: 'month', usage: 'metered', meterId: meter.body.id },
    billingScheme: 'per_unit',
    unitAmountDecimal: '0.25',
  });
  assert.equal(calls.status, 201, calls.text);
  const kinds = [
    [{ priceId: base.id }],
    [{ priceId: base.id }, { priceId: seats.id, quantity: 3 }],
    [{ priceId: base.id }, { priceId: calls.body.id }],
    [{ priceId: seats.id, quantity: 12 }, { priceId: calls.body.id }],
  ];
  const clock = await createClock(api, '2027-01-20T00:00:00.000Z');
  const subscribe = async (i: number) => {
    const customer = await clockCustomer(api, clock.id, {
      name: `Customer ${i}`,
      email: `customer${i}@example.com`,
    });
    const sub = await api.post('/v1/subscriptions', {
      customerId: customer.id,
      items: kinds[i % kinds.length],
      billingCycleAnchor: BOUNDARY,
      prorationBehavior: 'none',
      autoSend: Math.floor(i / kinds.length) % 2 === 1,
    });
    assert.equal(sub.status, 201, sub.text);
    assert.equal(sub.body.latestInvoiceId, null);
  };
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => subscribe(i + j)));
  }
  return { clockId: clock.id };
}
