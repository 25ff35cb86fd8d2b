// Payments in parallel over real HTTP: the invoice row lock keeps the amounts exact, so of
// payments that together exceed the total exactly those that fit are accepted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertError, getInvoice, pay, seller, startInvoiceApp } from './fixtures.ts';

const server = await startInvoiceApp();
const { api, invoice } = await seller(server);

const sum = (items: { amount: number }[]) => items.reduce((s, p) => s + p.amount, 0);

describe('concurrent payments', () => {
  it('accepts exactly the payments that fit when 20 together exceed the total', async () => {
    const inv = await invoice(); // 119.00
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post(`/v1/invoices/${inv.id}/payments`, { amount: 1000, method: 'card' }),
      ),
    );
    const accepted = results.filter((r) => r.status === 201).map((r) => r.body);
    const refused = results.filter((r) => r.status !== 201);
    assert.equal(accepted.length, 11);
    for (const res of refused) assertError(res, 400, 'parameter_invalid', 'amount');
    const after = await getInvoice(api, inv.id);
    assert.equal(after.status, 'open');
    assert.equal(after.amountPaid, 11000);
    assert.equal(after.amountRemaining, 900);
    assert.equal(after.payments.length, 11);
    assert.equal(sum(after.payments), after.amountPaid);
  });

  it('pays the invoice exactly once when the parallel payments reach the total', async () => {
    const inv = await invoice();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post(`/v1/invoices/${inv.id}/payments`, { amount: 700, method: 'cash' }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 17); // 17 × 7.00 = 119.00
    const after = await getInvoice(api, inv.id);
    assert.equal(after.status, 'paid');
    assert.equal(after.amountPaid, 11900);
    const { rows } = await server.db.query(
      `SELECT count(*)::int AS n FROM events WHERE object_id = $1 AND type = 'invoice.paid'`,
      [inv.id],
    );
    assert.equal(rows[0].n, 1);
  });

  it('voids a payment once when voids race, and restores the amounts', async () => {
    const inv = await invoice();
    const payment = await pay(api, inv.id, { amount: 11900 });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => api.post(`/v1/payments/${payment.id}/void`)),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    for (const res of results.filter((r) => r.status !== 200)) {
      assertError(res, 409, 'state_invalid');
    }
    const after = await getInvoice(api, inv.id);
    assert.equal(after.status, 'open');
    assert.equal(after.amountPaid, 0);
    assert.equal(after.amountRemaining, 11900);
  });

  it('keeps the amounts exact when payments and credit notes race', async () => {
    const inv = await invoice();
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        i % 2 === 0
          ? api.post(`/v1/invoices/${inv.id}/payments`, { amount: 1000, method: 'card' })
          : api.post('/v1/credit-notes', { invoiceId: inv.id, amount: 1000 }),
      ),
    );
    const payments = results.filter((r, i) => i % 2 === 0 && r.status === 201).map((r) => r.body);
    const notes = results.filter((r, i) => i % 2 === 1 && r.status === 201).map((r) => r.body);
    for (const res of results.filter((r) => r.status !== 201)) {
      // Too much to pay (400) once paid or nearly; a paid invoice takes no payment (409).
      assert.ok([400, 409].includes(res.status), res.text);
    }
    const after = await getInvoice(api, inv.id);
    assert.equal(after.amountPaid, sum(payments));
    assert.equal(sum(after.payments), after.amountPaid);
    // A credit beyond what was owed is recorded as refunded outside the API (outOfBandAmount).
    assert.equal(after.amountCredited + after.outOfBandAmount, sum(notes));
    assert.ok(after.amountCredited + after.outOfBandAmount <= after.total);
    assert.equal(after.amountRemaining, after.total - after.amountPaid - after.amountCredited);
    assert.ok(after.amountRemaining >= 0);
    assert.equal(after.status, after.amountRemaining === 0 ? 'paid' : 'open');
  });
});
