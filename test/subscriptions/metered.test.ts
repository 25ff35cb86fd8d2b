// Metered items on test clocks: usage billed in arrears at each boundary, in exact decimals at
// the price's scheme; free in a trial; split at a price change; late usage changing the draft
// during its grace period, and refused once the period's invoice is issued.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { advance, clockCustomer, createClock, invoicesOf } from './fixtures.ts';

const server = await startInvoiceApp();
const { api } = await tenantApi(server);

const product = await api.post('/v1/products', { name: 'API calls' });
const meter = await api.post('/v1/meters', {
  eventName: 'api_call',
  aggregation: 'sum',
  valueProperty: 'calls',
  displayName: 'API calls',
});
assert.equal(meter.status, 201, meter.text);

async function meteredPrice(unitAmountDecimal: string, nickname: string) {
  const price = await api.post('/v1/prices', {
    productId: product.body.id,
    currency: 'eur',
    type: 'recurring',
    recurring: { interval: 'month', usage: 'metered', meterId: meter.body.id },
    billingScheme: 'per_unit',
    unitAmountDecimal,
    nickname,
  });
  assert.equal(price.status, 201, price.text);
  return price.body as { id: string };
}

const half = await meteredPrice('0.5', 'half');
const tenth = await meteredPrice('0.1', 'tenth');

let sent = 0;
async function usage(customerId: string, timestamp: string, calls: number | string) {
  const res = await api.post('/v1/usage-events', {
    events: [
      { id: `e${++sent}`, eventName: 'api_call', customerId, timestamp, properties: { calls } },
    ],
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data[0] as { status: string; error?: { code: string } };
}

async function subscribed(body: Record<string, unknown> = {}) {
  const clock = await createClock(api, '2027-04-01T00:00:00.000Z');
  const customer = await clockCustomer(api, clock.id);
  const res = await api.post('/v1/subscriptions', {
    customerId: customer.id,
    items: [{ priceId: half.id }],
    ...body,
  });
  assert.equal(res.status, 201, res.text);
  return { clock, customer, subscription: res.body };
}

describe('metered items', () => {
  it('bills a period’s usage in arrears at its boundary, exactly, with nothing in advance', async () => {
    const { clock, customer, subscription } = await subscribed();
    // Nothing to bill in advance for a metered item: no first invoice.
    assert.equal(subscription.latestInvoiceId, null);
    await advance(api, clock.id, '2027-04-10T00:00:00.000Z');
    assert.equal((await usage(customer.id, '2027-04-02T00:00:00.000Z', 1001)).status, 'accepted');
    assert.equal((await usage(customer.id, '2027-04-09T00:00:00.000Z', '0.25')).status, 'accepted');
    const current = await api.get(`/v1/subscriptions/${subscription.id}/usage`);
    assert.equal(current.status, 200, current.text);
    assert.equal(current.body.data[0].value, '1001.25');
    const upcoming = await api.get(`/v1/subscriptions/${subscription.id}/upcoming-invoice`);
    // 1,001.25 × 0.5 = 500.625, rounded once: 501.
    assert.deepEqual(
      upcoming.body.lines.map((l: { amount: number }) => l.amount),
      [501],
    );
    await advance(api, clock.id, '2027-05-01T02:00:00.000Z');
    const [may] = await invoicesOf(api, subscription.id);
    assert.equal(may!.billingReason, 'subscription_cycle');
    assert.deepEqual(
      may!.lines.map((l) => [l.amount, l.period.start, l.period.end]),
      [[501, '2027-04-01T00:00:00.000Z', '2027-05-01T00:00:00.000Z']],
    );
    assert.equal((may!.lines[0] as { quantityDecimal?: string }).quantityDecimal, '1001.25');
  });

  it('bills nothing for usage in a trial', async () => {
    const { clock, customer, subscription } = await subscribed({ trialDays: 10 });
    await advance(api, clock.id, '2027-04-06T00:00:00.000Z');
    assert.equal((await usage(customer.id, '2027-04-05T00:00:00.000Z', 40)).status, 'accepted');
    await advance(api, clock.id, '2027-04-12T00:00:00.000Z');
    assert.equal((await usage(customer.id, '2027-04-11T12:00:00.000Z', 10)).status, 'accepted');
    await advance(api, clock.id, '2027-05-11T02:00:00.000Z');
    const invoices = await invoicesOf(api, subscription.id);
    assert.deepEqual(
      invoices.map((i) => i.lines.map((l) => l.amount)),
      [[5]],
    );
  });

  it('splits usage at a price change: before it at the old price, after at the new', async () => {
    const { clock, customer, subscription } = await subscribed();
    await advance(api, clock.id, '2027-04-15T00:00:00.000Z');
    await usage(customer.id, '2027-04-05T00:00:00.000Z', 100);
    const res = await api.patch(`/v1/subscriptions/${subscription.id}`, {
      items: [{ id: subscription.items[0].id, priceId: tenth.id }],
    });
    assert.equal(res.status, 200, res.text);
    await advance(api, clock.id, '2027-04-21T00:00:00.000Z');
    await usage(customer.id, '2027-04-20T00:00:00.000Z', 100);
    await advance(api, clock.id, '2027-05-01T02:00:00.000Z');
    const [may] = await invoicesOf(api, subscription.id);
    assert.deepEqual(may!.lines.map((l) => [l.amount, l.period.start, l.period.end]).sort(), [
      [10, '2027-04-15T00:00:00.000Z', '2027-05-01T00:00:00.000Z'],
      [50, '2027-04-01T00:00:00.000Z', '2027-04-15T00:00:00.000Z'],
    ]);
  });

  it('counts late usage on the draft during its grace period, and refuses it once issued', async () => {
    const { clock, customer, subscription } = await subscribed();
    await advance(api, clock.id, '2027-04-06T00:00:00.000Z');
    await usage(customer.id, '2027-04-05T00:00:00.000Z', 10);
    await advance(api, clock.id, '2027-05-01T00:10:00.000Z');
    const [draft] = await invoicesOf(api, subscription.id);
    assert.equal(draft!.status, 'draft');
    assert.equal(draft!.total, 5);
    assert.equal((await usage(customer.id, '2027-04-30T23:00:00.000Z', 10)).status, 'accepted');
    assert.equal((await api.get(`/v1/invoices/${draft!.id}`)).body.total, 10);
    await advance(api, clock.id, '2027-05-01T02:00:00.000Z');
    assert.equal((await api.get(`/v1/invoices/${draft!.id}`)).body.status, 'open');
    const late = await usage(customer.id, '2027-04-30T23:30:00.000Z', 10);
    assert.equal(late.status, 'error');
    assert.equal(late.error!.code, 'usage_period_closed');
    // The current period is open.
    assert.equal((await usage(customer.id, '2027-05-01T01:00:00.000Z', 10)).status, 'accepted');
  });
});
