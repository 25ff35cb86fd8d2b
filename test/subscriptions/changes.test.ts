// Changes inside a period under each proration behaviour, the preview of a change, trials with
// and without an anchor, cancel and pause: on test clocks, with the exact proration formula
// (docs/subscriptions.md): a change on Apr 10 of a 30-day April leaves f = 21/30.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertError, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { advance, clockCustomer, createClock, createPrice, invoicesOf } from './fixtures.ts';

const server = await startInvoiceApp();
const { api } = await tenantApi(server);
const basic = await createPrice(api, { unitAmount: 3000, name: 'Basic' });
const pro = await createPrice(api, { unitAmount: 5000, name: 'Pro' });

/** A subscription to `price` from Apr 1 2027, its clock moved to Apr 10. */
async function onApril10(price: { id: string } = basic, quantity = 1) {
  const clock = await createClock(api, '2027-04-01T00:00:00.000Z');
  const customer = await clockCustomer(api, clock.id);
  const res = await api.post('/v1/subscriptions', {
    customerId: customer.id,
    items: [{ priceId: price.id, quantity }],
  });
  assert.equal(res.status, 201, res.text);
  await advance(api, clock.id, '2027-04-10T00:00:00.000Z');
  return { clock, subscription: res.body, item: res.body.items[0].id as string };
}

const amounts = (lines: { amount: number }[]) => lines.map((l) => l.amount);

describe('changes inside a period', () => {
  it('previews an upgrade on Apr 10 as a credit of 2,100 and a charge of 3,500 over [Apr 10, May 1)', async () => {
    const { subscription, item } = await onApril10();
    const body = { items: [{ id: item, priceId: pro.id }] };
    const preview = await api.post(`/v1/subscriptions/${subscription.id}/preview-change`, body);
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(amounts(preview.body.lines), [-2100, 3500]);
    assert.deepEqual(
      preview.body.lines.map((l: { period: unknown; priceId: string }) => [l.priceId, l.period]),
      [
        [basic.id, { start: '2027-04-10T00:00:00.000Z', end: '2027-05-01T00:00:00.000Z' }],
        [pro.id, { start: '2027-04-10T00:00:00.000Z', end: '2027-05-01T00:00:00.000Z' }],
      ],
    );
    assert.equal(preview.body.subtotal, 1400);
    assert.equal(preview.body.total, 1400);
    // Nothing changed.
    const again = await api.get(`/v1/subscriptions/${subscription.id}`);
    assert.equal(again.body.items[0].price.id, basic.id);
  });

  it('create_prorations: the upgrade waits for the next invoice', async () => {
    const { clock, subscription, item } = await onApril10();
    const res = await api.patch(`/v1/subscriptions/${subscription.id}`, {
      items: [{ id: item, priceId: pro.id }],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.items[0].price.id, pro.id);
    assert.equal(res.body.latestInvoiceId, subscription.latestInvoiceId);
    await advance(api, clock.id, '2027-05-01T00:00:00.000Z');
    const invoices = await invoicesOf(api, subscription.id);
    assert.equal(invoices.length, 2);
    assert.deepEqual(amounts(invoices[1]!.lines), [5000, -2100, 3500]);
    assert.equal(invoices[1]!.total, 6400);
  });

  it('keeps the quantity when an item changes price, and names the lines in the customer’s language', async () => {
    const clock = await createClock(api, '2027-04-01T00:00:00.000Z');
    const customer = await clockCustomer(api, clock.id, { locale: 'de' });
    const created = await api.post('/v1/subscriptions', {
      customerId: customer.id,
      items: [{ priceId: basic.id, quantity: 2 }],
    });
    await advance(api, clock.id, '2027-04-10T00:00:00.000Z');
    const res = await api.patch(`/v1/subscriptions/${created.body.id}`, {
      items: [{ id: created.body.items[0].id, priceId: pro.id }],
      prorationBehavior: 'always_invoice',
    });
    assert.equal(res.body.items[0].quantity, 2);
    const [, update] = await invoicesOf(api, created.body.id);
    assert.deepEqual(
      update!.lines.map((l) => [l.description, l.amount]),
      [
        ['Nicht genutzte Zeit: Basic', -4200],
        ['Verbleibende Zeit: Pro', 7000],
      ],
    );
  });

  it('always_invoice: the upgrade is invoiced at once (reason subscription_update)', async () => {
    const { subscription, item } = await onApril10();
    const res = await api.patch(`/v1/subscriptions/${subscription.id}`, {
      items: [{ id: item, priceId: pro.id }],
      prorationBehavior: 'always_invoice',
    });
    assert.equal(res.status, 200, res.text);
    const invoices = await invoicesOf(api, subscription.id);
    assert.equal(invoices.length, 2);
    assert.equal(invoices[1]!.billingReason, 'subscription_update');
    assert.equal(invoices[1]!.id, res.body.latestInvoiceId);
    assert.deepEqual(amounts(invoices[1]!.lines), [-2100, 3500]);
  });

  it('none: the new price from the next period, nothing prorated', async () => {
    const { clock, subscription, item } = await onApril10();
    const res = await api.patch(`/v1/subscriptions/${subscription.id}`, {
      items: [{ id: item, priceId: pro.id }],
      prorationBehavior: 'none',
    });
    assert.equal(res.status, 200, res.text);
    await advance(api, clock.id, '2027-05-01T00:00:00.000Z');
    const invoices = await invoicesOf(api, subscription.id);
    assert.deepEqual(amounts(invoices[1]!.lines), [5000]);
  });

  it('prorates a quantity change from 1 to 3 as −2,100 and +6,300', async () => {
    const { clock, subscription, item } = await onApril10();
    const res = await api.patch(`/v1/subscriptions/${subscription.id}`, {
      items: [{ id: item, quantity: 3 }],
    });
    assert.equal(res.status, 200, res.text);
    await advance(api, clock.id, '2027-05-01T00:00:00.000Z');
    const invoices = await invoicesOf(api, subscription.id);
    assert.deepEqual(amounts(invoices[1]!.lines), [9000, -2100, 6300]);
  });

  it('credits a downgrade on a credit note against the invoice that billed the period, the charge waiting', async () => {
    const { clock, subscription, item } = await onApril10(pro);
    const res = await api.patch(`/v1/subscriptions/${subscription.id}`, {
      items: [{ id: item, priceId: basic.id }],
      prorationBehavior: 'always_invoice',
    });
    assert.equal(res.status, 200, res.text);
    // −3,500 + 2,100 is below zero: no invoice; the credit is a credit note on April's.
    assert.equal((await invoicesOf(api, subscription.id)).length, 1);
    const notes = await api.get(`/v1/credit-notes?invoiceId=${subscription.latestInvoiceId}`);
    assert.equal(notes.status, 200, notes.text);
    assert.equal(notes.body.data.length, 1);
    assert.equal(notes.body.data[0].total, 3500);
    assert.equal(notes.body.data[0].reason, 'order_change');
    await advance(api, clock.id, '2027-05-01T00:00:00.000Z');
    const invoices = await invoicesOf(api, subscription.id);
    assert.deepEqual(amounts(invoices[1]!.lines), [3000, 2100]);
  });

  it('caps a cancellation’s credit at what the invoice still allows, and says so in the memo', async () => {
    const { subscription } = await onApril10();
    const april = subscription.latestInvoiceId as string;
    const earlier = await api.post('/v1/credit-notes', { invoiceId: april, amount: 2000 });
    assert.equal(earlier.status, 201, earlier.text);
    const res = await api.post(`/v1/subscriptions/${subscription.id}/cancel`, {
      at: 'now',
      prorate: true,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'canceled');
    const notes = await api.get(`/v1/credit-notes?invoiceId=${april}`);
    const capped = notes.body.data.find((n: { id: string }) => n.id !== earlier.body.id);
    // 2,100 of unused time, but only 1,000 was left to credit.
    assert.equal(capped.total, 1000);
    assert.match(capped.memo, /capped at 1000/);
    assert.equal((await invoicesOf(api, subscription.id)).length, 1);
  });

  it('refuses a prorationDate outside the current period and a price in another currency', async () => {
    const { subscription, item } = await onApril10();
    assertError(
      await api.patch(`/v1/subscriptions/${subscription.id}`, {
        items: [{ id: item, quantity: 2 }],
        prorationDate: '2027-05-02T00:00:00.000Z',
      }),
      400,
      'parameter_invalid',
      'prorationDate',
    );
    const dollars = await createPrice(api, { currency: 'usd' });
    assertError(
      await api.patch(`/v1/subscriptions/${subscription.id}`, {
        items: [{ id: item, priceId: dollars.id }],
      }),
      400,
      'parameter_invalid',
    );
    const unchanged = await api.get(`/v1/subscriptions/${subscription.id}`);
    assert.equal(unchanged.body.items[0].quantity, 1);
    assert.equal(unchanged.body.items[0].price.id, basic.id);
  });
});

describe('trials', () => {
  it('bills nothing during a trial, warns 3 days before its end, then starts a period', async () => {
    const clock = await createClock(api, '2027-04-01T00:00:00.000Z');
    const customer = await clockCustomer(api, clock.id);
    const res = await api.post('/v1/subscriptions', {
      customerId: customer.id,
      items: [{ priceId: basic.id }],
      trialDays: 14,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'trialing');
    assert.equal(res.body.trialEnd, '2027-04-15T00:00:00.000Z');
    assert.equal(res.body.latestInvoiceId, null);
    await advance(api, clock.id, '2027-04-14T00:00:00.000Z');
    assert.equal((await invoicesOf(api, res.body.id)).length, 0);
    const events = await api.get('/v1/events?type=subscription.trial_will_end');
    assert.ok(
      events.body.data.some(
        (e: { data: { object: { id: string } } }) => e.data.object.id === res.body.id,
      ),
    );
    await advance(api, clock.id, '2027-04-16T00:00:00.000Z');
    const invoices = await invoicesOf(api, res.body.id);
    assert.equal(invoices.length, 1);
    assert.equal(invoices[0]!.billingReason, 'subscription_cycle');
    assert.deepEqual(invoices[0]!.lines[0]!.period, {
      start: '2027-04-15T00:00:00.000Z',
      end: '2027-05-15T00:00:00.000Z',
      startDate: '2027-04-15',
      endDate: '2027-05-14',
    });
    const after = await api.get(`/v1/subscriptions/${res.body.id}`);
    assert.equal(after.body.status, 'active');
  });

  it('prorates the stub between a trial’s end and a later anchor over the period ending at it', async () => {
    const clock = await createClock(api, '2027-04-01T00:00:00.000Z');
    const customer = await clockCustomer(api, clock.id);
    const res = await api.post('/v1/subscriptions', {
      customerId: customer.id,
      items: [{ priceId: basic.id }],
      trialEnd: '2027-04-15T00:00:00.000Z',
      billingCycleAnchor: '2027-05-01T00:00:00.000Z',
    });
    assert.equal(res.status, 201, res.text);
    await advance(api, clock.id, '2027-05-02T00:00:00.000Z');
    const invoices = await invoicesOf(api, res.body.id);
    // [Apr 15, May 1) of the period [Apr 1, May 1): 3,000 × 16/30 = 1,600.
    assert.deepEqual(
      invoices.map((i) => [amounts(i.lines), i.lines[0]!.period.start, i.lines[0]!.period.end]),
      [
        [[1600], '2027-04-15T00:00:00.000Z', '2027-05-01T00:00:00.000Z'],
        [[3000], '2027-05-01T00:00:00.000Z', '2027-06-01T00:00:00.000Z'],
      ],
    );
  });
});

describe('cancel and pause', () => {
  it('cancels at the period end, and can be undone until then', async () => {
    const { clock, subscription } = await onApril10();
    const res = await api.post(`/v1/subscriptions/${subscription.id}/cancel`, {});
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.cancelAtPeriodEnd, true);
    assert.equal(res.body.status, 'active');
    const undone = await api.patch(`/v1/subscriptions/${subscription.id}`, {
      cancelAtPeriodEnd: false,
    });
    assert.equal(undone.body.cancelAtPeriodEnd, false);
    await api.post(`/v1/subscriptions/${subscription.id}/cancel`, { at: 'period_end' });
    await advance(api, clock.id, '2027-06-01T00:00:00.000Z');
    const ended = await api.get(`/v1/subscriptions/${subscription.id}`);
    assert.equal(ended.body.status, 'canceled');
    assert.equal(ended.body.endedAt, '2027-05-01T00:00:00.000Z');
    // Nothing pending: no last invoice, and none for May.
    assert.equal((await invoicesOf(api, subscription.id)).length, 1);
    assertError(
      await api.post(`/v1/subscriptions/${subscription.id}/cancel`, {}),
      409,
      'state_invalid',
    );
  });

  it('cancels now with pending prorations on a last invoice (reason subscription_cancel)', async () => {
    const { subscription, item } = await onApril10();
    await api.patch(`/v1/subscriptions/${subscription.id}`, { items: [{ id: item, quantity: 2 }] });
    const res = await api.post(`/v1/subscriptions/${subscription.id}/cancel`, { at: 'now' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'canceled');
    assert.equal(res.body.endedAt, '2027-04-10T00:00:00.000Z');
    const invoices = await invoicesOf(api, subscription.id);
    assert.equal(invoices[1]!.billingReason, 'subscription_cancel');
    assert.deepEqual(amounts(invoices[1]!.lines), [-2100, 4200]);
  });

  it('voids the invoices made while paused with behavior void, and resumes on resumesAt', async () => {
    const { clock, subscription } = await onApril10();
    const res = await api.post(`/v1/subscriptions/${subscription.id}/pause`, {
      behavior: 'void',
      resumesAt: '2027-05-15T00:00:00.000Z',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'paused');
    await advance(api, clock.id, '2027-06-02T00:00:00.000Z');
    const invoices = await invoicesOf(api, subscription.id);
    assert.deepEqual(
      invoices.map((i) => i.status),
      ['open', 'void', 'open'],
    );
    assert.equal((await api.get(`/v1/subscriptions/${subscription.id}`)).body.status, 'active');
  });

  it('keeps the invoices made while paused as drafts with behavior keep_as_draft', async () => {
    const { clock, subscription } = await onApril10();
    await api.post(`/v1/subscriptions/${subscription.id}/pause`, { behavior: 'keep_as_draft' });
    await advance(api, clock.id, '2027-05-03T00:00:00.000Z');
    const invoices = await invoicesOf(api, subscription.id);
    assert.deepEqual(
      invoices.map((i) => i.status),
      ['open', 'draft'],
    );
    const resumed = await api.post(`/v1/subscriptions/${subscription.id}/resume`, {});
    assert.equal(resumed.body.status, 'active');
    assertError(
      await api.post(`/v1/subscriptions/${subscription.id}/resume`, {}),
      409,
      'state_invalid',
    );
  });
});

describe('standing', () => {
  it('is past_due while an invoice is overdue on the clock’s date, and active once it is paid', async () => {
    const clock = await createClock(api, '2027-04-01T00:00:00.000Z');
    const customer = await clockCustomer(api, clock.id);
    const res = await api.post('/v1/subscriptions', {
      customerId: customer.id,
      items: [{ priceId: basic.id }],
      daysUntilDue: 7,
    });
    assert.equal(res.status, 201, res.text);
    await advance(api, clock.id, '2027-04-08T12:00:00.000Z');
    const [april] = await invoicesOf(api, res.body.id);
    assert.equal(april!.status, 'open');
    assert.equal((await api.get(`/v1/subscriptions/${res.body.id}`)).body.status, 'active');
    // Due on Apr 8: overdue on Apr 9, on the clock's date, not today's.
    await advance(api, clock.id, '2027-04-09T01:00:00.000Z');
    assert.equal((await api.get(`/v1/invoices/${april!.id}`)).body.overdue, true);
    assert.equal((await api.get(`/v1/subscriptions/${res.body.id}`)).body.status, 'past_due');
    const events = await api.get('/v1/events?type=subscription.past_due');
    assert.ok(
      events.body.data.some(
        (e: { data: { object: { id: string } } }) => e.data.object.id === res.body.id,
      ),
    );
    const paid = await api.post(`/v1/invoices/${april!.id}/pay`, {});
    assert.equal(paid.status, 200, paid.text);
    await advance(api, clock.id, '2027-04-09T02:00:00.000Z');
    assert.equal((await api.get(`/v1/subscriptions/${res.body.id}`)).body.status, 'active');
  });
});
