// Credit notes in parallel over real HTTP: the invoice row lock keeps the caps and the
// amounts exact, and the counter row keeps the numbers gapless.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertError,
  createCustomer,
  createTaxRate,
  getInvoice,
  openInvoice,
  startInvoiceApp,
  tenantApi,
  total,
} from './fixtures.ts';

const server = await startInvoiceApp();
const { api } = await tenantApi(server);
const customer = await createCustomer(api);
const vat = await createTaxRate(api, { percentage: 19 });
const invoice = () => openInvoice(api, { customerId: customer.id, defaultTaxRates: [vat.id] });

const numbersOf = (notes: { number: string }[]) => notes.map((n) => n.number).sort();
const series = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `CN-${String(from + i).padStart(6, '0')}`);

async function creditInParallel(invoiceId: string, amount: number, count: number) {
  const results = await Promise.all(
    Array.from({ length: count }, () => api.post('/v1/credit-notes', { invoiceId, amount })),
  );
  const created = results.filter((r) => r.status === 201).map((r) => r.body);
  const refused = results.filter((r) => r.status !== 201);
  for (const res of refused) assertError(res, 400, 'parameter_invalid', 'amount');
  return { created, refused };
}

describe('concurrent credit notes', () => {
  it('lets exactly the credits that fit through when 20 together exceed the total', async () => {
    const inv = await invoice(); // 119.00
    const { created, refused } = await creditInParallel(inv.id, 1000, 20);
    assert.equal(created.length, 11);
    assert.equal(refused.length, 9);
    assert.deepEqual(numbersOf(created), series(1, 11));
    const after = await getInvoice(api, inv.id);
    assert.equal(after.status, 'open');
    assert.equal(after.amountCredited, 11000);
    assert.equal(after.amountRemaining, 900);
    assert.equal(after.amountCredited + after.amountRemaining, after.total);
    for (const note of created) {
      assert.equal(note.totalExcludingTax + note.tax, note.total);
      assert.ok(note.tax >= 0 && note.totalExcludingTax >= 0);
    }
    assert.ok(total(created, (n) => n.tax) <= inv.tax);
  });

  it('pays the invoice and credits its tax exactly when the parallel credits reach the total', async () => {
    const inv = await invoice();
    const { created, refused } = await creditInParallel(inv.id, 700, 20); // 17 × 7.00 = 119.00
    assert.equal(created.length, 17);
    assert.equal(refused.length, 3);
    assert.deepEqual(numbersOf(created), series(12, 17));
    const after = await getInvoice(api, inv.id);
    assert.equal(after.status, 'paid');
    assert.equal(after.amountRemaining, 0);
    assert.equal(after.amountCredited, 11900);
    assert.equal(
      total(created, (n) => n.tax),
      1900,
    );
    assert.equal(
      total(created, (n) => n.totalExcludingTax),
      10000,
    );
    const listed = (await api.get(`/v1/credit-notes?invoiceId=${inv.id}&limit=100`)).body.data;
    assert.equal(listed.length, 17);
  });

  it('voids a credit note once when voids race', async () => {
    const inv = await invoice();
    const note = (await api.post('/v1/credit-notes', { invoiceId: inv.id, amount: 11900 })).body;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api.post(`/v1/credit-notes/${note.id}/void`)),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    for (const res of results.filter((r) => r.status !== 200)) {
      assertError(res, 409, 'state_invalid');
    }
    const after = await getInvoice(api, inv.id);
    assert.equal(after.status, 'open');
    assert.equal(after.amountCredited, 0);
    assert.equal(after.amountRemaining, 11900);
  });
});
