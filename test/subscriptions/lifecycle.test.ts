// More of a subscription's life on test clocks: a change of interval, a cancellation at an
// instant, autoSend, a scheduled start, and deleting the clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertError, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { advance, clockCustomer, createClock, createPrice, invoicesOf } from './fixtures.ts';

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const monthly = await createPrice(api, { unitAmount: 3000, name: 'Monthly' });
const yearly = await createPrice(api, { unitAmount: 30000, interval: 'year', name: 'Yearly' });

async function subscribed(at: string, body: Record<string, unknown> = {}) {
  const clock = await createClock(api, at);
  const customer = await clockCustomer(api, clock.id);
  const res = await api.post('/v1/subscriptions', {
    customerId: customer.id,
    items: [{ priceId: monthly.id }],
    ...body,
  });
  assert.equal(res.status, 201, res.text);
  return { clock, customer, subscription: res.body };
}

describe('a subscription’s life', () => {
  it('changes interval: credits the rest of the month and bills a year from the change, anchored there', async () => {
    const { clock, subscription } = await subscribed('2027-04-01T00:00:00.000Z');
    await advance(api, clock.id, '2027-04-10T00:00:00.000Z');
    const res = await api.patch(`/v1/subscriptions/${subscription.id}`, {
      items: [{ id: subscription.items[0].id, priceId: yearly.id }],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.billingCycleAnchor, '2027-04-10T00:00:00.000Z');
    assert.deepEqual(res.body.currentPeriod, {
      start: '2027-04-10T00:00:00.000Z',
      end: '2028-04-10T00:00:00.000Z',
    });
    const invoices = await invoicesOf(api, subscription.id);
    assert.equal(invoices.length, 2);
    assert.equal(invoices[1]!.billingReason, 'subscription_update');
    assert.deepEqual(
      invoices[1]!.lines.map((l) => l.amount),
      [-2100, 30000],
    );
    assert.equal(res.body.latestInvoiceId, invoices[1]!.id);
  });

  it('cancels at an instant after a boundary: the boundary is billed, then it ends', async () => {
    const { clock, subscription } = await subscribed('2027-04-01T00:00:00.000Z');
    const res = await api.post(`/v1/subscriptions/${subscription.id}/cancel`, {
      at: '2027-05-15T00:00:00.000Z',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.cancelAt, '2027-05-15T00:00:00.000Z');
    assertError(
      await api.post(`/v1/subscriptions/${subscription.id}/cancel`, {
        at: '2027-03-01T00:00:00.000Z',
      }),
      400,
      'parameter_invalid',
      'at',
    );
    await advance(api, clock.id, '2027-06-02T00:00:00.000Z');
    const ended = (await api.get(`/v1/subscriptions/${subscription.id}`)).body;
    assert.equal(ended.status, 'canceled');
    assert.equal(ended.endedAt, '2027-05-15T00:00:00.000Z');
    assert.equal(ended.nextInvoiceAt, null);
    const invoices = await invoicesOf(api, subscription.id);
    assert.deepEqual(
      invoices.map((i) => i.billingReason),
      ['subscription_create', 'subscription_cycle'],
    );
  });

  it('sends each invoice when it is issued with autoSend', async () => {
    const { clock, subscription } = await subscribed('2027-04-01T00:00:00.000Z', {
      autoSend: true,
    });
    assert.equal(subscription.autoSend, true);
    await advance(api, clock.id, '2027-04-01T02:00:00.000Z');
    const { rows } = await server.db.query(
      `SELECT count(*)::int AS n FROM mail_outbox WHERE tenant_id = $1 AND subject_id = $2`,
      [key.tenantId, subscription.latestInvoiceId],
    );
    assert.equal(rows[0].n, 1);
    // The issue's own update queued the e-mail (one update of the row, not two); the event of
    // the issue still says the invoice as issued, before its e-mail, as an issue and a send
    // through the API do.
    const invoice = (await api.get(`/v1/invoices/${subscription.latestInvoiceId}`)).body;
    assert.equal(invoice.status, 'open');
    assert.deepEqual(invoice.email, { status: 'queued', attempts: 0, lastError: null });
    const events = (await api.get('/v1/events?type=invoice.issued&limit=100')).body.data;
    const issued = events.find((e: any) => e.data.object.id === invoice.id);
    assert.ok(issued, 'invoice.issued is recorded');
    assert.equal(issued.data.object.email, null);
    assert.equal(issued.data.object.number, invoice.number);
  });

  it('starts a scheduled subscription at startAt with its first invoice', async () => {
    const { clock, subscription } = await subscribed('2027-04-01T00:00:00.000Z', {
      startAt: '2027-04-20T00:00:00.000Z',
    });
    assert.equal(subscription.status, 'scheduled');
    assert.equal(subscription.latestInvoiceId, null);
    assert.equal(subscription.nextInvoiceAt, '2027-04-20T00:00:00.000Z');
    await advance(api, clock.id, '2027-04-21T00:00:00.000Z');
    const started = (await api.get(`/v1/subscriptions/${subscription.id}`)).body;
    assert.equal(started.status, 'active');
    const invoices = await invoicesOf(api, subscription.id);
    assert.deepEqual(
      invoices.map((i) => [i.billingReason, i.lines[0]!.period.start]),
      [['subscription_create', '2027-04-20T00:00:00.000Z']],
    );
  });

  it('deletes a clock with its subscriptions and drafts; the customer and issued invoices stay', async () => {
    const { clock, customer, subscription } = await subscribed('2027-04-01T00:00:00.000Z');
    await advance(api, clock.id, '2027-05-01T00:10:00.000Z');
    const [issued, draft] = await invoicesOf(api, subscription.id);
    assert.equal(issued!.status, 'open');
    assert.equal(draft!.status, 'draft');
    const deleted = await api.delete(`/v1/test-clocks/${clock.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assertError(await api.get(`/v1/test-clocks/${clock.id}`), 404, 'resource_missing');
    assertError(await api.get(`/v1/subscriptions/${subscription.id}`), 404, 'resource_missing');
    assertError(await api.get(`/v1/invoices/${draft!.id}`), 404, 'resource_missing');
    assert.equal((await api.get(`/v1/invoices/${issued!.id}`)).body.status, 'open');
    assert.equal((await api.get(`/v1/customers/${customer.id}`)).body.testClockId, null);
  });

  it('refuses a live key with test_mode_only, and a clock of another tenant as unknown', async () => {
    const { api: live } = await tenantApi(server, { environment: 'live' });
    assertError(
      await live.post('/v1/test-clocks', { frozenTime: '2027-01-01T00:00:00.000Z' }),
      403,
      'test_mode_only',
    );
    const { api: other } = await tenantApi(server);
    const clock = await createClock(api, '2027-01-01T00:00:00.000Z');
    assertError(await other.get(`/v1/test-clocks/${clock.id}`), 404, 'resource_missing');
    assertError(
      await other.post('/v1/customers', { name: 'x', testClockId: clock.id }),
      404,
      'resource_missing',
      'testClockId',
    );
  });
});
