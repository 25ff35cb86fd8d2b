// Payments over HTTP (API.md part C, "Payments and receivables"): partial payments add up, the
// last one pays the invoice, a void payment gives the amount back, and the invoice lists them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey } from '../helpers.ts';
import {
  assertError,
  createCustomer,
  daysFromToday,
  eventTypes,
  getInvoice,
  issuedInvoice,
  openInvoice,
  pay,
  seller,
  startInvoiceApp,
  tenantApi,
} from './fixtures.ts';

const server = await startInvoiceApp();

describe('payments', () => {
  it('adds partial payments up and pays the invoice with the one that leaves nothing', async () => {
    const { api, key, invoice } = await seller(server);
    const inv = await invoice(); // 119.00
    const first = await pay(api, inv.id, { amount: 5000, reference: 'SEPA 1' });
    assert.match(first.id, /^pay_/);
    assert.deepEqual(
      { ...first, id: undefined, receivedAt: undefined, createdAt: undefined },
      {
        id: undefined,
        object: 'payment',
        invoiceId: inv.id,
        customerId: inv.customerId,
        amount: 5000,
        currency: 'eur',
        method: 'bank_transfer',
        reference: 'SEPA 1',
        status: 'succeeded',
        receivedAt: undefined,
        createdAt: undefined,
        voidedAt: null,
        environment: 'test',
      },
    );
    assert.equal(first.receivedAt, first.createdAt, 'received now when not told');
    const partly = await getInvoice(api, inv.id);
    assert.equal(partly.status, 'open');
    assert.equal(partly.amountPaid, 5000);
    assert.equal(partly.amountRemaining, 6900);
    assert.equal(partly.paidAt, null);
    assert.deepEqual(partly.payments, [first]);

    const second = await pay(api, inv.id, { amount: 6900, method: 'card' });
    const paid = await getInvoice(api, inv.id);
    assert.equal(paid.status, 'paid');
    assert.equal(paid.amountPaid, 11900);
    assert.equal(paid.amountRemaining, 0);
    assert.ok(paid.paidAt);
    assert.deepEqual(paid.payments, [first, second]);
    assert.deepEqual(await eventTypes(server.db, key.tenantId, inv.id), [
      'invoice.created',
      'invoice.issued',
      'invoice.updated',
      'invoice.paid',
    ]);
    // payment.created is recorded before the invoice event of the same payment.
    const { rows } = await server.db.query(
      `SELECT type, object_id FROM events WHERE tenant_id = $1 AND object_id IN ($2, $3)
        ORDER BY created_at, id`,
      [key.tenantId, second.id, inv.id],
    );
    assert.deepEqual(
      rows.slice(-2).map((r) => r.type),
      ['payment.created', 'invoice.paid'],
    );
  });

  it('refuses a payment of more than what remains, or of nothing, naming amount', async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice();
    await pay(api, inv.id, { amount: 10000 });
    for (const amount of [1901, 0, -5]) {
      const res = await api.post(`/v1/invoices/${inv.id}/payments`, { amount, method: 'cash' });
      assertError(res, 400, 'parameter_invalid', 'amount');
    }
    const res = await api.post(`/v1/invoices/${inv.id}/payments`, { amount: 1, method: 'wire' });
    assertError(res, 400, 'parameter_invalid', 'method');
    assert.equal((await getInvoice(api, inv.id)).amountPaid, 10000);
  });

  it('takes payments on open and uncollectible invoices only', async () => {
    const { api, customer, invoice } = await seller(server);
    const draft = (
      await api.post('/v1/invoices', {
        customerId: customer.id,
        currency: 'eur',
        lines: [{ description: 'x', unitAmount: 100 }],
      })
    ).body;
    assertError(
      await api.post(`/v1/invoices/${draft.id}/payments`, { amount: 1, method: 'cash' }),
      409,
      'state_invalid',
    );
    const voided = await invoice();
    assert.equal((await api.post(`/v1/invoices/${voided.id}/void`)).status, 200);
    assertError(
      await api.post(`/v1/invoices/${voided.id}/payments`, { amount: 1, method: 'cash' }),
      409,
      'state_invalid',
    );
    const written = await invoice();
    assert.equal((await api.post(`/v1/invoices/${written.id}/mark-uncollectible`)).status, 200);
    await pay(api, written.id, { amount: 900 });
    const still = await getInvoice(api, written.id);
    assert.equal(still.status, 'uncollectible');
    assert.equal(still.amountRemaining, 11000);
    await pay(api, written.id, { amount: 11000 });
    const settled = await getInvoice(api, written.id);
    assert.equal(settled.status, 'paid');
    assertError(
      await api.post(`/v1/invoices/${written.id}/payments`, { amount: 1, method: 'cash' }),
      409,
      'state_invalid',
    );
    assertError(
      await api.post('/v1/invoices/inv_0000000000000000000000/payments', {
        amount: 1,
        method: 'cash',
      }),
      404,
      'resource_missing',
    );
  });

  it('voids a payment: amountPaid drops by it and a paid invoice is open again', async () => {
    const { api, key, invoice } = await seller(server);
    const inv = await invoice();
    const first = await pay(api, inv.id, { amount: 11000 });
    const second = await pay(api, inv.id, { amount: 900 });
    assert.equal((await getInvoice(api, inv.id)).status, 'paid');

    const res = await api.post(`/v1/payments/${first.id}/void`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'void');
    assert.ok(res.body.voidedAt);
    const reopened = await getInvoice(api, inv.id);
    assert.equal(reopened.status, 'open');
    assert.equal(reopened.paidAt, null);
    assert.equal(reopened.amountPaid, 900);
    assert.equal(reopened.amountRemaining, 11000);
    assert.deepEqual(reopened.payments, [res.body, second]);
    assert.deepEqual((await eventTypes(server.db, key.tenantId, inv.id)).slice(-1), [
      'invoice.updated',
    ]);
    assert.deepEqual(await eventTypes(server.db, key.tenantId, first.id), [
      'payment.created',
      'payment.voided',
    ]);
    assertError(await api.post(`/v1/payments/${first.id}/void`), 409, 'state_invalid');
    // Paid again in full, by the whole remainder.
    const paid = await api.post(`/v1/invoices/${inv.id}/pay`);
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.status, 'paid');
    assert.equal(paid.body.amountPaid, 11900);
  });

  it('keeps the payments of a void invoice as they are', async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice();
    const payment = await pay(api, inv.id, { amount: 100 });
    assert.equal((await api.post(`/v1/invoices/${inv.id}/void`)).status, 200);
    assertError(await api.post(`/v1/payments/${payment.id}/void`), 409, 'state_invalid');
    assert.equal((await getInvoice(api, inv.id)).amountPaid, 100);
  });

  it('pays the whole remainder with /pay as a payment of method other', async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice();
    await pay(api, inv.id, { amount: 1900 });
    const res = await api.post(`/v1/invoices/${inv.id}/pay`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'paid');
    const last = res.body.payments.at(-1);
    assert.equal(last.amount, 10000);
    assert.equal(last.method, 'other');
    assert.deepEqual((await api.get(`/v1/payments/${last.id}`)).body, last);
    assertError(await api.post(`/v1/invoices/${inv.id}/pay`), 409, 'state_invalid');
  });

  it('lists payments newest first, by invoice and by customer, page by page', async () => {
    const { api } = await tenantApi(server);
    const ada = await createCustomer(api);
    const bob = await createCustomer(api, { name: 'Bob' });
    const a = await openInvoice(api, { customerId: ada.id });
    const b = await openInvoice(api, { customerId: bob.id });
    const made = [];
    for (let i = 1; i <= 3; i++) made.push(await pay(api, a.id, { amount: i }));
    for (let i = 1; i <= 2; i++) made.push(await pay(api, b.id, { amount: i }));
    const ids = (list: { id: string }[]) => list.map((p) => p.id);

    const all = await api.get('/v1/payments');
    assert.deepEqual(ids(all.body.data), ids([...made].reverse()));
    const ofA = await api.get(`/v1/payments?invoiceId=${a.id}`);
    assert.deepEqual(ids(ofA.body.data), ids(made.slice(0, 3).reverse()));
    const ofBob = await api.get(`/v1/payments?customerId=${bob.id}`);
    assert.deepEqual(ids(ofBob.body.data), ids(made.slice(3).reverse()));
    const none = await api.get(`/v1/payments?invoiceId=${a.id}&customerId=${bob.id}`);
    assert.deepEqual(none.body.data, []);

    const walked = [];
    let cursor: string | null = null;
    do {
      const page: any = await api.get(
        `/v1/payments?invoiceId=${a.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(page.status, 200, page.text);
      walked.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.deepEqual(ids(walked), ids(ofA.body.data));
    const first = await api.get(`/v1/payments?invoiceId=${a.id}&limit=1`);
    assertError(
      await api.get(`/v1/payments?invoiceId=${b.id}&cursor=${first.body.nextCursor}`),
      400,
      'cursor_invalid',
    );
  });

  it('keeps receivedAt as given and refuses one in the future or not a date-time', async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice();
    const p = await pay(api, inv.id, { amount: 1, receivedAt: '2026-01-02T03:04:05.678+02:00' });
    assert.equal(p.receivedAt, '2026-01-02T01:04:05.678Z');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    for (const receivedAt of [future, '2026-01-02', 'yesterday', '1969-12-31T23:59:59Z']) {
      const res = await api.post(`/v1/invoices/${inv.id}/payments`, {
        amount: 1,
        method: 'cash',
        receivedAt,
      });
      assertError(res, 400, 'parameter_invalid', 'receivedAt');
    }
  });

  it('shows nothing of another tenant or environment', async () => {
    const { api, key, invoice } = await seller(server);
    const inv = await invoice();
    const payment = await pay(api, inv.id, { amount: 100 });
    const other = (await tenantApi(server)).api;
    const live = client(
      server.url,
      (await createTenantWithKey(server.db, { tenantId: key.tenantId, environment: 'live' }))
        .secret,
    );
    for (const stranger of [other, live]) {
      assertError(await stranger.get(`/v1/payments/${payment.id}`), 404, 'resource_missing');
      assertError(await stranger.post(`/v1/payments/${payment.id}/void`), 404, 'resource_missing');
      assertError(
        await stranger.post(`/v1/invoices/${inv.id}/payments`, { amount: 1, method: 'cash' }),
        404,
        'resource_missing',
      );
      assert.deepEqual((await stranger.get('/v1/payments')).body.data, []);
    }
  });

  it('records a payment once when it is retried with its Idempotency-Key', async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice();
    const headers = { 'idempotency-key': 'pay-once' };
    const body = { amount: 700, method: 'check' };
    const first = await api.post(`/v1/invoices/${inv.id}/payments`, body, headers);
    const again = await api.post(`/v1/invoices/${inv.id}/payments`, body, headers);
    assert.equal(first.status, 201);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal((await getInvoice(api, inv.id)).payments.length, 1);
  });

  it('lets a read-only key read payments and their events, and not a customers key', async () => {
    const { api, key, invoice } = await seller(server);
    const inv = await invoice();
    const payment = await pay(api, inv.id, { amount: 100 });
    const reader = client(
      server.url,
      (
        await createTenantWithKey(server.db, {
          tenantId: key.tenantId,
          scopes: ['invoices:read'],
        })
      ).secret,
    );
    assert.equal((await reader.get(`/v1/payments/${payment.id}`)).status, 200);
    const events = await reader.get('/v1/events?type=payment.created');
    assert.equal(events.status, 200, events.text);
    assert.deepEqual(events.body.data[0].data.object, payment);
    assertError(
      await reader.post(`/v1/invoices/${inv.id}/payments`, { amount: 1, method: 'cash' }),
      403,
      'scope_insufficient',
    );
    const customers = client(
      server.url,
      (
        await createTenantWithKey(server.db, {
          tenantId: key.tenantId,
          scopes: ['customers:read'],
        })
      ).secret,
    );
    assertError(await customers.get('/v1/payments'), 403, 'scope_insufficient');
    assertError(await customers.get('/v1/events?type=payment.created'), 403, 'scope_insufficient');
  });

  it('takes at most 100 payments on one invoice', async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice();
    for (let i = 0; i < 100; i++) await pay(api, inv.id, { amount: 1 });
    assertError(
      await api.post(`/v1/invoices/${inv.id}/payments`, { amount: 1, method: 'cash' }),
      409,
      'state_invalid',
    );
    assert.equal((await getInvoice(api, inv.id)).payments.length, 100);
  });

  it('shows an open invoice past its due date as overdue, and no other', async () => {
    const { api, customer } = await seller(server);
    const invoice = (dueDate: string) => issuedInvoice(api, { customerId: customer.id, dueDate });
    const late = await invoice(daysFromToday(-1));
    assert.equal(late.overdue, true);
    const dueToday = await invoice(daysFromToday(0));
    assert.equal(dueToday.overdue, false);
    await pay(api, late.id, { amount: late.amountRemaining });
    assert.equal((await getInvoice(api, late.id)).overdue, false);
    const written = await invoice(daysFromToday(-5));
    const res = await api.post(`/v1/invoices/${written.id}/mark-uncollectible`);
    assert.equal(res.body.overdue, false);
  });
});

describe('the database', () => {
  it('refuses an amountPaid that is not the sum of the payments', async () => {
    const { api, key, invoice } = await seller(server);
    const inv = await invoice();
    await pay(api, inv.id, { amount: 500 });
    const tx = await server.db.connect();
    try {
      await tx.query('BEGIN');
      await tx.query(
        `UPDATE invoices SET amount_paid = amount_paid + 1, amount_remaining = amount_remaining - 1
          WHERE tenant_id = $1 AND id = $2`,
        [key.tenantId, inv.id],
      );
      await assert.rejects(tx.query('COMMIT'), /amount_paid/);
    } finally {
      tx.release();
    }
    await assert.rejects(
      server.db.query(
        `UPDATE payments SET status = 'void', voided_at = now() WHERE tenant_id = $1 AND invoice_id = $2`,
        [key.tenantId, inv.id],
      ),
      /amount_paid/,
    );
    await assert.rejects(
      server.db.query(
        `UPDATE invoices SET amount_paid = total + 1, amount_remaining = -1 - amount_credited
          WHERE tenant_id = $1 AND id = $2`,
        [key.tenantId, inv.id],
      ),
      /invoices_consistent/,
    );
    assert.equal((await getInvoice(api, inv.id)).amountPaid, 500);
  });
});
