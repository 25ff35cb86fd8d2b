import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BillingApiError,
  BillingClient,
  TestClockTimeoutError,
  type Price,
  type Subscription,
  type TestClock,
} from '../../clients/typescript/src/index.ts';
import { createTenantWithKey, startTestApp, waitFor } from '../helpers.ts';

// The typed client's subscriptions and test clocks against the real server: a subscription on
// a test clock billed through two months, every action on a subscription, auto-paging with
// the list's filters, and the test clocks' own operations.

const server = await startTestApp();
const scopes = ['subscriptions:read', 'subscriptions:write', 'customers:write', 'invoices:read'];
const key = await createTenantWithKey(server.db, { scopes });
const client = new BillingClient({ apiKey: key.secret, baseUrl: server.url, baseDelayMs: 20 });

async function monthlyPrice(unitAmount: number): Promise<Price> {
  const product = await client.products.create({ name: 'Pro plan' });
  return client.prices.create({
    productId: product.id,
    currency: 'eur',
    type: 'recurring',
    recurring: { interval: 'month', intervalCount: 1, usage: 'licensed' },
    billingScheme: 'per_unit',
    unitAmount,
  });
}

async function customerOn(clock: TestClock) {
  return client.customers.create({ name: 'Ada Lovelace', testClockId: clock.id });
}

describe('the client: subscriptions on test clocks', () => {
  it('bills a subscription through two months of a test clock: three invoices with their reasons', async () => {
    const price = await monthlyPrice(3000);
    const clock = await client.testClocks.create({
      name: 'two months',
      frozenTime: '2027-01-15T09:00:00.000Z',
    });
    assert.match(clock.id, /^clock_/);
    const customer = await customerOn(clock);
    const subscription: Subscription = await client.subscriptions.create({
      customerId: customer.id,
      items: [{ priceId: price.id, quantity: 2 }],
    });
    assert.match(subscription.id, /^sub_/);
    assert.equal(subscription.status, 'active');
    assert.equal(subscription.testClockId, clock.id);
    assert.match(subscription.items[0]!.id, /^si_/);

    const ready = await client.testClocks.advanceAndWait(clock.id, '2027-03-15T09:00:00.000Z', {
      pollMs: 50,
    });
    assert.equal(ready.status, 'ready');
    assert.equal(ready.frozenTime, '2027-03-15T09:00:00.000Z');
    assert.equal(ready.advancingTo, null);

    const invoices = await client.invoices.list({ subscriptionId: subscription.id }).toArray();
    assert.deepEqual(
      invoices.map((i) => [i.billingReason, i.subscriptionId, i.total, i.lines[0]!.period?.start]),
      [
        ['subscription_cycle', subscription.id, 6000, '2027-03-15T09:00:00.000Z'],
        ['subscription_cycle', subscription.id, 6000, '2027-02-15T09:00:00.000Z'],
        ['subscription_create', subscription.id, 6000, '2027-01-15T09:00:00.000Z'],
      ],
    );
    const current = await client.subscriptions.get(subscription.id);
    assert.deepEqual(current.currentPeriod, {
      start: '2027-03-15T09:00:00.000Z',
      end: '2027-04-15T09:00:00.000Z',
    });
    assert.equal(current.latestInvoiceId, invoices[0]!.id);

    const upcoming = await client.subscriptions.upcomingInvoice(subscription.id);
    assert.equal(upcoming.id, null);
    assert.equal(upcoming.billingReason, 'subscription_cycle');
    assert.equal(upcoming.createdAt, '2027-04-15T09:00:00.000Z');
    assert.equal(upcoming.total, 6000);
  });

  it('previews, changes, pauses, resumes and cancels a subscription', async () => {
    const price = await monthlyPrice(3000);
    const clock = await client.testClocks.create({ frozenTime: '2027-06-01T00:00:00.000Z' });
    const customer = await customerOn(clock);
    const subscription = await client.subscriptions.create({
      customerId: customer.id,
      items: [{ priceId: price.id }],
    });
    const itemId = subscription.items[0]!.id;
    // Half-way through June (30 days): the unused half of one seat is credited, half of two
    // seats charged.
    await client.testClocks.advanceAndWait(clock.id, '2027-06-16T00:00:00.000Z', { pollMs: 50 });
    const change = { items: [{ id: itemId, quantity: 2 }] };
    const preview = await client.subscriptions.previewChange(subscription.id, change);
    assert.deepEqual(
      preview.lines.map((l) => [l.amount, l.proration, l.period.start]),
      [
        [-1500, true, '2027-06-16T00:00:00.000Z'],
        [3000, true, '2027-06-16T00:00:00.000Z'],
      ],
    );
    assert.equal(preview.total, 1500);
    assert.equal((await client.subscriptions.get(subscription.id)).items[0]!.quantity, 1);

    const changed = await client.subscriptions.update(subscription.id, {
      ...change,
      prorationBehavior: 'none',
      metadata: { plan: 'team' },
    });
    assert.equal(changed.items[0]!.quantity, 2);
    assert.deepEqual(changed.metadata, { plan: 'team' });

    const paused = await client.subscriptions.pause(subscription.id, { behavior: 'void' });
    assert.equal(paused.status, 'paused');
    assert.deepEqual(paused.pause, { behavior: 'void', resumesAt: null });
    const resumed = await client.subscriptions.resume(subscription.id);
    assert.equal(resumed.status, 'active');
    assert.equal(resumed.pause, null);

    const atPeriodEnd = await client.subscriptions.cancel(subscription.id);
    assert.equal(atPeriodEnd.cancelAtPeriodEnd, true);
    assert.equal(atPeriodEnd.status, 'active');
    const canceled = await client.subscriptions.cancel(subscription.id, { at: 'now' });
    assert.equal(canceled.status, 'canceled');
    assert.equal(canceled.endedAt, '2027-06-16T00:00:00.000Z');
  });

  it('walks every page of subscriptions with its filters: customer, status and price', async () => {
    const [monthly, other] = [await monthlyPrice(1000), await monthlyPrice(2000)];
    const clock = await client.testClocks.create({ frozenTime: '2027-09-01T00:00:00.000Z' });
    const customer = await customerOn(clock);
    const made: Subscription[] = [];
    for (const price of [monthly, monthly, monthly, monthly, other]) {
      made.push(
        await client.subscriptions.create({
          customerId: customer.id,
          items: [{ priceId: price.id }],
        }),
      );
    }
    const newestFirst = made.map((s) => s.id).reverse();
    const seen: string[] = [];
    for await (const s of client.subscriptions.list({ customerId: customer.id, limit: 2 })) {
      seen.push(s.id);
    }
    assert.deepEqual(seen, newestFirst);
    const pages = [];
    for await (const page of client.subscriptions
      .list({ customerId: customer.id, limit: 2 })
      .pages())
      pages.push(page.data.length);
    assert.deepEqual(pages, [2, 2, 1]);

    assert.deepEqual(
      (await client.subscriptions.list({ priceId: other.id }).toArray()).map((s) => s.id),
      [made[4]!.id],
    );
    await client.subscriptions.cancel(made[1]!.id, { at: 'now' });
    const canceled = client.subscriptions.list({ customerId: customer.id, status: 'canceled' });
    assert.deepEqual(
      (await canceled.toArray()).map((s) => s.id),
      [made[1]!.id],
    );
    const active = client.subscriptions.list({
      customerId: customer.id,
      status: 'active',
      limit: 1,
    });
    assert.equal((await active.toArray()).length, 4);
  });
});

describe('the client: test clocks', () => {
  it('creates, reads, lists and deletes test clocks', async () => {
    const made: TestClock[] = [];
    for (let i = 0; i < 3; i++) {
      made.push(
        await client.testClocks.create({
          name: `clock ${i}`,
          frozenTime: '2028-01-01T00:00:00.000Z',
        }),
      );
    }
    assert.equal((await client.testClocks.get(made[0]!.id)).name, 'clock 0');
    const listed: string[] = [];
    for await (const clock of client.testClocks.list({ limit: 2 })) listed.push(clock.id);
    for (const clock of made) assert.ok(listed.includes(clock.id), clock.id);

    const deleted = await client.testClocks.delete(made[0]!.id);
    assert.deepEqual(deleted, { id: made[0]!.id, object: 'test_clock', deleted: true });
    const missing = await client.testClocks.get(made[0]!.id).catch((e: unknown) => e);
    assert.ok(missing instanceof BillingApiError);
    assert.equal(missing.code, 'resource_missing');
  });

  it('answers an advance at once with the clock advancing, and refuses to move it back', async () => {
    const clock = await client.testClocks.create({ frozenTime: '2028-03-01T00:00:00.000Z' });
    const advancing = await client.testClocks.advance(clock.id, {
      frozenTime: '2028-05-01T00:00:00.000Z',
    });
    assert.equal(advancing.lastResponse.status, 202);
    assert.equal(advancing.status, 'advancing');
    assert.equal(advancing.advancingTo, '2028-05-01T00:00:00.000Z');
    await waitFor(
      async () => (await client.testClocks.get(clock.id)).status === 'ready',
      'the clock to be ready',
    );
    const back = await client.testClocks
      .advanceAndWait(clock.id, '2028-04-01T00:00:00.000Z')
      .catch((e: unknown) => e);
    assert.ok(back instanceof BillingApiError);
    assert.equal(back.code, 'parameter_invalid');
    assert.equal(back.param, 'frozenTime');
  });

  it('gives up waiting after timeoutMs with the clock as last seen, while the advance goes on', async () => {
    const clock = await client.testClocks.create({ frozenTime: '2028-06-01T00:00:00.000Z' });
    const error = await client.testClocks
      .advanceAndWait(clock.id, '2030-06-01T00:00:00.000Z', { timeoutMs: 1 })
      .catch((e: unknown) => e);
    assert.ok(error instanceof TestClockTimeoutError, String(error));
    assert.equal(error.clock.id, clock.id);
    assert.equal(error.clock.status, 'advancing');
    await waitFor(
      async () => (await client.testClocks.get(clock.id)).status === 'ready',
      'the clock to be ready',
    );
    await assert.rejects(
      client.testClocks.advanceAndWait(clock.id, '2030-07-01T00:00:00.000Z', { pollMs: 0 }),
      RangeError,
    );
  });

  it('refuses test clocks to a live key with test_mode_only', async () => {
    const live = await createTenantWithKey(server.db, {
      scopes,
      environment: 'live',
      tenantId: key.tenantId,
    });
    const liveClient = new BillingClient({ apiKey: live.secret, baseUrl: server.url });
    const refused = await liveClient.testClocks
      .create({ frozenTime: '2028-01-01T00:00:00.000Z' })
      .catch((e: unknown) => e);
    assert.ok(refused instanceof BillingApiError);
    assert.equal(refused.status, 403);
    assert.equal(refused.code, 'test_mode_only');
  });
});
