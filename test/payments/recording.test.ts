// What recording a payment takes and tells: POST /v1/invoices/{id}/pay takes the same optional
// description of the payment as POST …/payments (method, reference, receivedAt), and the answer
// to POST …/payments tells the invoice's new status and what it still owes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertError, credit, getInvoice, seller, startInvoiceApp } from './fixtures.ts';

const server = await startInvoiceApp();

describe('paying the whole remainder', () => {
  it('records the method, reference and date the body gives', async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice(); // 119.00
    const receivedAt = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const res = await api.post(`/v1/invoices/${inv.id}/pay`, {
      method: 'bank_transfer',
      reference: 'SEPA 2026-11-24 0815',
      receivedAt,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'paid');
    assert.equal(res.body.amountRemaining, 0);
    const [payment] = res.body.payments;
    assert.equal(payment.amount, 11900);
    assert.equal(payment.method, 'bank_transfer');
    assert.equal(payment.reference, 'SEPA 2026-11-24 0815');
    assert.equal(payment.receivedAt, receivedAt);
    assert.deepEqual((await api.get(`/v1/payments/${payment.id}`)).body, payment);
  });

  it('still takes no body: method other, no reference, received now', async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice();
    const res = await api.post(`/v1/invoices/${inv.id}/pay`);
    assert.equal(res.status, 200, res.text);
    const [payment] = res.body.payments;
    assert.equal(payment.method, 'other');
    assert.equal(payment.reference, null);
    assert.equal(payment.receivedAt, payment.createdAt);
    const empty = await api.post(`/v1/invoices/${(await invoice()).id}/pay`, {});
    assert.equal(empty.status, 200, empty.text);
    assert.equal(empty.body.payments[0].method, 'other');
  });

  it('refuses what POST …/payments refuses, and changes nothing', async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice();
    const future = new Date(Date.now() + 86_400_000).toISOString();
    for (const [body, param] of [
      [{ method: 'bitcoin' }, 'method'],
      [{ reference: '' }, 'reference'],
      [{ reference: 'x'.repeat(501) }, 'reference'],
      [{ receivedAt: 'yesterday' }, 'receivedAt'],
      [{ receivedAt: future }, 'receivedAt'],
      [{ amount: 100 }, 'amount'],
    ] as const) {
      const res = await api.post(`/v1/invoices/${inv.id}/pay`, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.param, param, JSON.stringify(body));
    }
    const after = await getInvoice(api, inv.id);
    assert.equal(after.status, 'open');
    assert.deepEqual(after.payments, []);
  });
});

describe('the answer to a recorded payment', () => {
  it("tells the invoice's new status and amountRemaining, and a replay tells the same", async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice(); // 119.00
    const part = await api.post(`/v1/invoices/${inv.id}/payments`, {
      amount: 5000,
      method: 'bank_transfer',
    });
    assert.equal(part.status, 201, part.text);
    assert.deepEqual(part.body.invoice, { id: inv.id, status: 'open', amountRemaining: 6900 });
    await credit(api, { invoiceId: inv.id, amount: 1900 });
    const headers = { 'idempotency-key': 'the-rest' };
    const body = { amount: 5000, method: 'card' };
    const rest = await api.post(`/v1/invoices/${inv.id}/payments`, body, headers);
    assert.equal(rest.status, 201, rest.text);
    assert.deepEqual(rest.body.invoice, { id: inv.id, status: 'paid', amountRemaining: 0 });
    const replay = await api.post(`/v1/invoices/${inv.id}/payments`, body, headers);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, rest.body);
    // The payment as read later is the payment alone.
    const { invoice: _state, ...payment } = rest.body;
    assert.deepEqual((await api.get(`/v1/payments/${rest.body.id}`)).body, payment);
  });

  it('still refuses a void invoice with 409', async () => {
    const { api, invoice } = await seller(server);
    const inv = await invoice();
    await api.post(`/v1/invoices/${inv.id}/void`);
    assertError(
      await api.post(`/v1/invoices/${inv.id}/payments`, { amount: 100, method: 'cash' }),
      409,
      'state_invalid',
    );
  });
});
