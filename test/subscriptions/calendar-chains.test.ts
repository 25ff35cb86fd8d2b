// The billing calendar end to end on test clocks: month-end anchors, a yearly Feb 29, a
// quarterly 31st, and local time across both DST changes in Berlin and New York. Each
// invoice is made once per period, issued after the grace period, with gapless numbers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import {
  advance,
  clockCustomer,
  createClock,
  createPrice,
  invoicesOf,
  periodsOf,
} from './fixtures.ts';

const server = await startInvoiceApp();
const { api } = await tenantApi(server);

async function subscribe(
  clockTime: string,
  price: { id: string },
  customer: Record<string, unknown> = {},
) {
  const clock = await createClock(api, clockTime);
  const { id: customerId } = await clockCustomer(api, clock.id, customer);
  const res = await api.post('/v1/subscriptions', { customerId, items: [{ priceId: price.id }] });
  assert.equal(res.status, 201, res.text);
  return { clock, subscription: res.body };
}

describe('the billing calendar on test clocks', () => {
  it('bills an anchor on Jan 31 on Feb 28, Mar 31 and Apr 30, one invoice per period', async () => {
    const price = await createPrice(api, { unitAmount: 3000 });
    const { clock, subscription } = await subscribe('2027-01-31T10:00:00.000Z', price);
    assert.equal(subscription.status, 'active');
    assert.match(subscription.latestInvoiceId, /^inv_/);
    assert.deepEqual(subscription.currentPeriod, {
      start: '2027-01-31T10:00:00.000Z',
      end: '2027-02-28T10:00:00.000Z',
    });
    await advance(api, clock.id, '2027-05-01T00:00:00.000Z');
    assert.deepEqual(await periodsOf(api, subscription.id), [
      ['2027-01-31T10:00:00.000Z', '2027-02-28T10:00:00.000Z'],
      ['2027-02-28T10:00:00.000Z', '2027-03-31T10:00:00.000Z'],
      ['2027-03-31T10:00:00.000Z', '2027-04-30T10:00:00.000Z'],
      ['2027-04-30T10:00:00.000Z', '2027-05-31T10:00:00.000Z'],
    ]);
    const invoices = await invoicesOf(api, subscription.id);
    assert.deepEqual(
      invoices.map((i) => [i.billingReason, i.status, i.total]),
      [
        ['subscription_create', 'open', 3000],
        ['subscription_cycle', 'open', 3000],
        ['subscription_cycle', 'open', 3000],
        ['subscription_cycle', 'open', 3000],
      ],
    );
    // Issued after the grace period, numbered without a gap.
    const numbers = invoices.map((i) => Number(i.number!.split('-').pop()));
    assert.deepEqual(
      numbers.map((n) => n - numbers[0]!),
      [0, 1, 2, 3],
    );
    const after = (await api.get(`/v1/subscriptions/${subscription.id}`)).body;
    assert.deepEqual(after.currentPeriod, {
      start: '2027-04-30T10:00:00.000Z',
      end: '2027-05-31T10:00:00.000Z',
    });
    assert.equal(after.latestInvoiceId, invoices[3]!.id);
  });

  it('bills a leap-year anchor in Feb 2028 through Feb 29 and back', async () => {
    const price = await createPrice(api, { unitAmount: 1000 });
    const { clock, subscription } = await subscribe('2028-01-31T00:00:00.000Z', price);
    await advance(api, clock.id, '2028-03-01T00:00:00.000Z');
    assert.deepEqual(await periodsOf(api, subscription.id), [
      ['2028-01-31T00:00:00.000Z', '2028-02-29T00:00:00.000Z'],
      ['2028-02-29T00:00:00.000Z', '2028-03-31T00:00:00.000Z'],
    ]);
  });

  it('bills a yearly anchor on Feb 29 on Feb 28 in common years', async () => {
    const price = await createPrice(api, { unitAmount: 12000, interval: 'year' });
    const { clock, subscription } = await subscribe('2028-02-29T12:00:00.000Z', price);
    // At most two calendar years an advance.
    await advance(api, clock.id, '2030-01-01T00:00:00.000Z');
    await advance(api, clock.id, '2031-12-01T00:00:00.000Z');
    await advance(api, clock.id, '2032-03-01T00:00:00.000Z');
    assert.deepEqual(await periodsOf(api, subscription.id), [
      ['2028-02-29T12:00:00.000Z', '2029-02-28T12:00:00.000Z'],
      ['2029-02-28T12:00:00.000Z', '2030-02-28T12:00:00.000Z'],
      ['2030-02-28T12:00:00.000Z', '2031-02-28T12:00:00.000Z'],
      ['2031-02-28T12:00:00.000Z', '2032-02-29T12:00:00.000Z'],
      ['2032-02-29T12:00:00.000Z', '2033-02-28T12:00:00.000Z'],
    ]);
  });

  it('bills a quarterly anchor on the 31st on the last day of shorter months', async () => {
    const price = await createPrice(api, { unitAmount: 9000, intervalCount: 3 });
    const { clock, subscription } = await subscribe('2027-01-31T09:00:00.000Z', price);
    await advance(api, clock.id, '2027-11-01T00:00:00.000Z');
    assert.deepEqual(await periodsOf(api, subscription.id), [
      ['2027-01-31T09:00:00.000Z', '2027-04-30T09:00:00.000Z'],
      ['2027-04-30T09:00:00.000Z', '2027-07-31T09:00:00.000Z'],
      ['2027-07-31T09:00:00.000Z', '2027-10-31T09:00:00.000Z'],
      ['2027-10-31T09:00:00.000Z', '2028-01-31T09:00:00.000Z'],
    ]);
  });

  it('keeps 02:30 Europe/Berlin across both DST changes (03:00 on the spring day)', async () => {
    const price = await createPrice(api, { unitAmount: 2000 });
    // 2027-01-28 02:30 in Berlin (CET, UTC+1) is 01:30Z.
    const { clock, subscription } = await subscribe('2027-01-28T01:30:00.000Z', price, {
      timeZone: 'Europe/Berlin',
    });
    assert.equal(subscription.timeZone, 'Europe/Berlin');
    await advance(api, clock.id, '2027-11-01T00:00:00.000Z');
    const starts = (await periodsOf(api, subscription.id)).map(([start]) => start);
    assert.deepEqual(starts, [
      '2027-01-28T01:30:00.000Z',
      '2027-02-28T01:30:00.000Z',
      // Mar 28: clocks jump from 02:00 to 03:00; 02:30 does not exist, 03:00 CEST is 01:00Z.
      '2027-03-28T01:00:00.000Z',
      '2027-04-28T00:30:00.000Z',
      '2027-05-28T00:30:00.000Z',
      '2027-06-28T00:30:00.000Z',
      '2027-07-28T00:30:00.000Z',
      '2027-08-28T00:30:00.000Z',
      '2027-09-28T00:30:00.000Z',
      '2027-10-28T00:30:00.000Z',
    ]);
  });

  it('keeps 01:30 America/New_York across both DST changes (the first 01:30 in fall)', async () => {
    const price = await createPrice(api, { unitAmount: 2000, currency: 'usd' });
    // Anchored on the 7th at 01:30 EST (06:30Z); Nov 7 2027 repeats 01:00–02:00.
    const { clock, subscription } = await subscribe('2027-02-07T06:30:00.000Z', price, {
      timeZone: 'America/New_York',
    });
    await advance(api, clock.id, '2027-11-08T00:00:00.000Z');
    const starts = (await periodsOf(api, subscription.id)).map(([start]) => start);
    assert.deepEqual(starts, [
      '2027-02-07T06:30:00.000Z',
      '2027-03-07T06:30:00.000Z',
      '2027-04-07T05:30:00.000Z',
      '2027-05-07T05:30:00.000Z',
      '2027-06-07T05:30:00.000Z',
      '2027-07-07T05:30:00.000Z',
      '2027-08-07T05:30:00.000Z',
      '2027-09-07T05:30:00.000Z',
      '2027-10-07T05:30:00.000Z',
      // The first of the two 01:30s (EDT, UTC−4).
      '2027-11-07T05:30:00.000Z',
    ]);
  });
});
