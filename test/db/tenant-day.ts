// Work over the API for the partitioning tests: tenants with books of their own, and one
// tenant's day that runs the reads and writes of every module.
import assert from 'node:assert/strict';
import type { startReceiver } from '../webhooks/receiver.ts';
import { ConsoleBrowser, consoleUser, PASSWORD } from '../console/browser.ts';
import { call, client, createTenantWithKey, type TestServer, waitFor } from '../helpers.ts';

/** Tenants with customers, issued invoices, credit notes, keys and webhook endpoints. */
export async function bookkeeping(server: TestServer, tenants: number): Promise<void> {
  for (let n = 0; n < tenants; n++) {
    const key = await createTenantWithKey(server.db);
    const api = client(server.url, key.secret);
    const customer = await api.post('/v1/customers', {
      name: `Customer ${n}`,
      email: 'a@b.example',
    });
    const rate = await api.post('/v1/tax-rates', {
      displayName: 'VAT',
      percentage: 19,
      inclusive: false,
    });
    const invoice = await api.post(
      '/v1/invoices',
      {
        customerId: customer.body.id,
        currency: 'eur',
        defaultTaxRates: [rate.body.id],
        lines: [
          { description: 'Consulting', unitAmount: 10000, quantity: 2 },
          { description: 'Travel', unitAmount: 2500 },
        ],
      },
      { 'idempotency-key': `invoice-${n}` },
    );
    assert.equal(invoice.status, 201, invoice.text);
    assert.equal((await api.post(`/v1/invoices/${invoice.body.id}/issue`)).status, 200);
    const note = await api.post('/v1/credit-notes', { invoiceId: invoice.body.id, amount: 1190 });
    assert.equal(note.status, 201, note.text);
  }
}

/** One tenant's day: every module's reads and writes over the API. */
export async function tenantDay(
  serverUrl: string,
  api: ReturnType<typeof client>,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
) {
  const ok = (res: { status: number; text: string }, status = 200) =>
    assert.equal(res.status, status, res.text);

  const endpoint = await api.post('/v1/webhook-endpoints', {
    url: receiver.url('/flow'),
    enabledEvents: ['*'],
  });
  ok(endpoint, 201);
  receiver.expectSecret('/flow', endpoint.body.secret);
  ok(await api.get('/v1/webhook-endpoints'));
  ok(await api.get(`/v1/webhook-endpoints/${endpoint.body.id}`));
  ok(await api.patch(`/v1/webhook-endpoints/${endpoint.body.id}`, { description: 'Books' }));

  const customer = await api.post(
    '/v1/customers',
    { name: 'Ada', email: 'ada@example.com' },
    { 'idempotency-key': 'customer-ada' },
  );
  ok(customer, 201);
  ok(await api.post('/v1/customers', { name: 'Grace' }), 201);
  ok(await api.get(`/v1/customers/${customer.body.id}`));
  const page = await api.get('/v1/customers?limit=1');
  ok(page);
  ok(await api.get(`/v1/customers?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`));
  ok(await api.get('/v1/customers?email=ada@example.com'));
  ok(await api.patch(`/v1/customers/${customer.body.id}`, { phone: '+49 30 1234567' }));

  const rate = await api.post('/v1/tax-rates', {
    displayName: 'VAT',
    percentage: 19,
    inclusive: false,
  });
  ok(rate, 201);
  ok(await api.get('/v1/tax-rates'));
  ok(await api.get(`/v1/tax-rates/${rate.body.id}`));

  const product = await api.post('/v1/products', { name: 'Analytics', taxRates: [rate.body.id] });
  ok(product, 201);
  ok(await api.get(`/v1/products/${product.body.id}`));
  ok(await api.get('/v1/products?active=true'));
  ok(await api.patch(`/v1/products/${product.body.id}`, { description: 'Dashboards' }));
  const price = await api.post('/v1/prices', {
    productId: product.body.id,
    currency: 'eur',
    type: 'recurring',
    recurring: { interval: 'month' },
    billingScheme: 'tiered',
    tiersMode: 'graduated',
    tiers: [
      { upTo: 10, unitAmount: 0, flatAmount: 4900 },
      { upTo: null, unitAmountDecimal: '2.5' },
    ],
  });
  ok(price, 201);
  ok(await api.get(`/v1/prices/${price.body.id}`));
  ok(await api.get(`/v1/prices?productId=${product.body.id}&active=true`));
  ok(await api.get('/v1/prices?active=true'));
  ok(await api.patch(`/v1/prices/${price.body.id}`, { nickname: 'Monthly' }));

  // Subscriptions on a test clock: created with their first invoice, changed (a pending
  // proration), previewed, and billed by an advance through a boundary and its grace period.
  const clock = await api.post('/v1/test-clocks', { frozenTime: '2027-01-01T00:00:00.000Z' });
  ok(clock, 201);
  const subscriber = await api.post('/v1/customers', {
    name: 'Subscriber',
    testClockId: clock.body.id,
  });
  ok(subscriber, 201);
  const seat = await api.post('/v1/prices', {
    productId: product.body.id,
    currency: 'eur',
    type: 'recurring',
    recurring: { interval: 'month' },
    billingScheme: 'per_unit',
    unitAmount: 1200,
  });
  ok(seat, 201);
  const subscription = await api.post('/v1/subscriptions', {
    customerId: subscriber.body.id,
    items: [{ priceId: seat.body.id, quantity: 2 }],
  });
  ok(subscription, 201);
  const sub = subscription.body.id;
  const item = subscription.body.items[0].id;
  ok(await api.get(`/v1/subscriptions/${sub}`));
  ok(await api.get(`/v1/subscriptions?customerId=${subscriber.body.id}`));
  ok(await api.get(`/v1/subscriptions?priceId=${seat.body.id}`));
  ok(
    await api.post(`/v1/subscriptions/${sub}/preview-change`, {
      items: [{ id: item, quantity: 3 }],
    }),
  );
  ok(await api.patch(`/v1/subscriptions/${sub}`, { items: [{ id: item, quantity: 3 }] }));
  ok(await api.get(`/v1/subscriptions/${sub}/upcoming-invoice`));
  ok(
    await api.post(`/v1/test-clocks/${clock.body.id}/advance`, {
      frozenTime: '2027-02-01T02:00:00.000Z',
    }),
    202,
  );
  await waitFor(
    async () => (await api.get(`/v1/test-clocks/${clock.body.id}`)).body.status === 'ready',
    'the test clock to be ready',
  );
  ok(await api.get(`/v1/invoices?subscriptionId=${sub}`));
  ok(await api.get('/v1/test-clocks'));

  // Usage: a meter, a batch with a copy of its event (a duplicate), the batch again (its hash
  // read back), a meter made after the event (its backfill), and a summary by day.
  const meter = await api.post('/v1/meters', {
    eventName: 'api_call',
    aggregation: 'sum',
    valueProperty: 'units',
    displayName: 'API units',
  });
  ok(meter, 201);
  const usage = {
    id: 'day-1',
    eventName: 'api_call',
    customerId: subscriber.body.id,
    timestamp: '2027-02-01T01:30:00.000Z',
    properties: { units: '2.5' },
  };
  ok(await api.post('/v1/usage-events', { events: [usage, usage] }));
  ok(await api.post('/v1/usage-events', { events: [usage] }));
  ok(
    await api.post('/v1/meters', {
      eventName: 'api_call',
      aggregation: 'unique_count',
      valueProperty: 'units',
      displayName: 'Distinct units',
    }),
    201,
  );
  const summary = new URLSearchParams({
    customerId: subscriber.body.id,
    from: '2027-01-31T00:00:00.000Z',
    to: '2027-02-01T02:00:00.000Z',
    granularity: 'day',
  });
  ok(await api.get(`/v1/meters/${meter.body.id}/summaries?${summary}`));
  ok(await api.get('/v1/meters'));
  ok(await api.patch(`/v1/meters/${meter.body.id}`, { status: 'inactive' }));
  ok(await api.post(`/v1/subscriptions/${sub}/cancel`, { at: 'now', prorate: true }));

  const invoice = await api.post(
    '/v1/invoices',
    {
      customerId: customer.body.id,
      currency: 'eur',
      defaultTaxRates: [rate.body.id],
      daysUntilDue: 30,
      lines: [{ description: 'Consulting', unitAmount: 10000, quantity: 3 }],
    },
    { 'idempotency-key': 'invoice-1' },
  );
  ok(invoice, 201);
  const id = invoice.body.id;
  const line = await api.post(`/v1/invoices/${id}/lines`, {
    description: 'Travel',
    unitAmount: 4000,
  });
  ok(line);
  const travel = line.body.lines.at(-1).id;
  ok(await api.delete(`/v1/invoices/${id}/lines/${travel}`));
  ok(await api.patch(`/v1/invoices/${id}`, { memo: 'Thank you' }));
  ok(await api.get(`/v1/invoices/${id}`));
  ok(await api.get('/v1/invoices'));
  ok(await api.get(`/v1/invoices?customerId=${customer.body.id}`));
  ok(await api.get('/v1/invoices?status=draft'));
  ok(await api.get(`/v1/invoices?customerId=${customer.body.id}&status=draft`));
  const issued = await api.post(`/v1/invoices/${id}/issue`);
  ok(issued);
  ok(await api.get(`/v1/invoices/${id}/pdf`));
  ok(await api.post(`/v1/invoices/${id}/send`));
  // The hosted page (no key needed, none used): the link's look-up, the invoice, a download;
  // then a new link.
  const hostedPage = new URL(issued.body.hostedInvoiceUrl).pathname;
  ok(await call(serverUrl, 'GET', hostedPage));
  ok(await call(serverUrl, 'GET', `${hostedPage}/pdf`));
  ok(await api.post(`/v1/invoices/${id}/hosted-link`));
  ok(await api.get('/v1/settings'));
  ok(await api.patch('/v1/settings', { locale: 'de', reminders: [3] }));
  // Long overdue: the dunning job (run by the caller) marks it and sends its reminder.
  const late = await api.post('/v1/invoices', {
    customerId: customer.body.id,
    currency: 'eur',
    dueDate: '2020-01-31',
    lines: [{ description: 'Late', unitAmount: 700 }],
  });
  ok(late, 201);
  ok(await api.post(`/v1/invoices/${late.body.id}/issue`));

  const note = await api.post('/v1/credit-notes', {
    invoiceId: id,
    amount: 1190,
    reason: 'duplicate',
  });
  ok(note, 201);
  ok(await api.get(`/v1/credit-notes/${note.body.id}`));
  ok(await api.get('/v1/credit-notes'));
  ok(await api.get(`/v1/credit-notes?invoiceId=${id}`));
  ok(await api.get(`/v1/credit-notes/${note.body.id}/pdf`));
  ok(await api.post(`/v1/credit-notes/${note.body.id}/void`));
  ok(await api.post(`/v1/invoices/${id}/pay`));
  const other = await api.post('/v1/invoices', {
    customerId: customer.body.id,
    currency: 'eur',
    lines: [{ description: 'Support', unitAmount: 500 }],
  });
  ok(other, 201);
  ok(await api.post(`/v1/invoices/${other.body.id}/issue`));
  ok(await api.post(`/v1/invoices/${other.body.id}/void`));

  const events = await api.get('/v1/events?limit=5');
  ok(events);
  ok(await api.get('/v1/events?type=invoice.created'));
  ok(await api.get(`/v1/events/${events.body.data[0].id}`));

  ok(await api.get('/v1/api-keys'));
  const key = await api.post('/v1/api-keys', { name: 'Books', scopes: ['invoices:read'] });
  ok(key, 201);
  ok(await client(serverUrl, key.body.secret).get('/v1/auth/whoami'));
  const rotated = await api.post(`/v1/api-keys/${key.body.id}/rotate`, {});
  ok(rotated, 201);
  ok(await api.post(`/v1/api-keys/${rotated.body.id}/revoke`));

  // Every event so far delivered and its attempt recorded, before one is sent again.
  const delivered = await waitFor(async () => {
    const deliveries = await api.get(`/v1/webhook-endpoints/${endpoint.body.id}/deliveries`);
    ok(deliveries);
    const all = deliveries.body.data as { id: string; status: string }[];
    return all.length >= 10 && all.every((d) => d.status === 'succeeded') ? all[0] : undefined;
  }, 'webhook deliveries');
  const deliveredBefore = receiver.at('/flow').length;
  ok(await api.post(`/v1/webhook-endpoints/${endpoint.body.id}/deliveries/${delivered.id}/retry`));
  await waitFor(() => receiver.at('/flow').length > deliveredBefore, 'the retried delivery');
  ok(await api.delete(`/v1/webhook-endpoints/${endpoint.body.id}`));
}

/**
 * A day at the console for the tenant: an admin invited and setting a password, a wrong
 * password once (the sign-in throttle's count), a session, pages read, a customer made through
 * a form, signing out.
 */
export async function consoleDay(server: TestServer, tenantId: string): Promise<void> {
  const user = await consoleUser(server, 'admin', { tenantId });
  const browser = new ConsoleBrowser(server.url);
  assert.equal((await browser.signIn(tenantId, user.email, 'not the password')).status, 401);
  assert.equal((await browser.signIn(tenantId, user.email, PASSWORD)).status, 303);
  const switched = await browser.submit('/console', '/console/environment', {
    environment: 'test',
    back: '/console',
  });
  assert.equal(switched.status, 303, switched.text);
  for (const path of ['/console', '/console/customers', '/console/settings/users']) {
    assert.equal((await browser.get(path)).status, 200, path);
  }
  const made = await browser.submit('/console/customers', '/console/customers', {
    name: 'Katherine',
    email: 'katherine@example.com',
    idempotencyKey: 'console-day-customer',
  });
  assert.equal(made.status, 303, made.text);
  assert.equal((await browser.submit('/console', '/console/sign-out', {})).status, 303);
}
