// A property over random sequences of payments, voids of payments, credit notes, voids of
// credit notes and write-offs on one invoice, all through the API (fast-check): after every
// step the invoice's amounts are what an independent model of the contract says, paid +
// credited + remaining = total, nothing is negative, and the invoice lists its payments.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createCustomer, createTaxRate, getInvoice, issuedInvoice } from './fixtures.ts';
import { startInvoiceApp, tenantApi, type Api } from './fixtures.ts';

const server = await startInvoiceApp();
const { api } = await tenantApi(server);
const customer = await createCustomer(api);
const vat = await createTaxRate(api, { percentage: 19 });

type Step =
  | { kind: 'pay'; share: number; over: boolean }
  | { kind: 'voidPayment'; pick: number }
  | { kind: 'credit'; share: number; over: boolean }
  | { kind: 'voidCredit'; pick: number }
  | { kind: 'markUncollectible' };

const share = fc.integer({ min: 1, max: 1000 }); // per mille of what is left
const over = fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, fc.constant(true));
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('pay' as const), share, over }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('voidPayment' as const), pick: fc.nat() }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('credit' as const), share, over }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('voidCredit' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'markUncollectible' as const }) },
);

/** What the contract says the invoice holds. */
interface Model {
  total: number;
  status: string;
  payments: { id: string; amount: number; void: boolean }[];
  notes: { id: string; credited: number; outOfBand: number; void: boolean }[];
}
const paid = (m: Model) => m.payments.filter((p) => !p.void).reduce((s, p) => s + p.amount, 0);
const credited = (m: Model) => m.notes.filter((n) => !n.void).reduce((s, n) => s + n.credited, 0);
const outOfBand = (m: Model) => m.notes.filter((n) => !n.void).reduce((s, n) => s + n.outOfBand, 0);
const remaining = (m: Model) => m.total - paid(m) - credited(m);
const part = (left: number, perMille: number) => Math.max(1, Math.ceil((left * perMille) / 1000));

async function apply(api: Api, invoiceId: string, m: Model, s: Step): Promise<void> {
  if (s.kind === 'pay') {
    const amount = s.over ? remaining(m) + 1 : part(remaining(m), s.share);
    const res = await api.post(`/v1/invoices/${invoiceId}/payments`, { amount, method: 'card' });
    if (m.status !== 'open' && m.status !== 'uncollectible') return expect(res, 409);
    if (amount > remaining(m)) return expect(res, 400);
    expect(res, 201);
    m.payments.push({ id: res.body.id, amount, void: false });
    if (remaining(m) === 0) m.status = 'paid';
  } else if (s.kind === 'voidPayment') {
    const payment = m.payments[s.pick % Math.max(1, m.payments.length)];
    if (!payment) return;
    const res = await api.post(`/v1/payments/${payment.id}/void`);
    if (payment.void) return expect(res, 409);
    expect(res, 200);
    payment.void = true;
    if (m.status === 'paid') m.status = 'open';
  } else if (s.kind === 'credit') {
    const available = m.total - credited(m) - outOfBand(m);
    const amount = s.over ? available + 1 : part(available, s.share);
    const res = await api.post('/v1/credit-notes', { invoiceId, amount });
    if (m.status !== 'open' && m.status !== 'paid') return expect(res, 409);
    if (amount > available) return expect(res, 400);
    expect(res, 201);
    const owed = m.status === 'open' ? Math.min(amount, remaining(m)) : 0;
    m.notes.push({ id: res.body.id, credited: owed, outOfBand: amount - owed, void: false });
    if (m.status === 'open' && remaining(m) === 0) m.status = 'paid';
  } else if (s.kind === 'voidCredit') {
    const note = m.notes[s.pick % Math.max(1, m.notes.length)];
    if (!note) return;
    const res = await api.post(`/v1/credit-notes/${note.id}/void`);
    if (note.void) return expect(res, 409);
    expect(res, 200);
    note.void = true;
    if (m.status === 'paid' && note.credited > 0) m.status = 'open';
  } else {
    const res = await api.post(`/v1/invoices/${invoiceId}/mark-uncollectible`);
    if (m.status !== 'open') return expect(res, 409);
    expect(res, 200);
    m.status = 'uncollectible';
  }
}

function expect(res: { status: number; text: string }, status: number) {
  assert.equal(res.status, status, res.text);
}

function check(invoice: any, m: Model) {
  const amounts = [invoice.amountPaid, invoice.amountCredited, invoice.outOfBandAmount];
  for (const amount of [...amounts, invoice.amountRemaining]) assert.ok(amount >= 0, `${amount}`);
  assert.equal(
    invoice.amountPaid + invoice.amountCredited + invoice.amountRemaining,
    invoice.total,
  );
  assert.equal(invoice.amountPaid, paid(m), 'amountPaid');
  assert.equal(invoice.amountCredited, credited(m), 'amountCredited');
  assert.equal(invoice.outOfBandAmount, outOfBand(m), 'outOfBandAmount');
  assert.equal(invoice.status, m.status);
  assert.equal(invoice.paidAt !== null, m.status === 'paid');
  assert.deepEqual(
    invoice.payments.map((p: any) => [p.id, p.amount, p.status]),
    m.payments.map((p) => [p.id, p.amount, p.void ? 'void' : 'succeeded']),
  );
}

describe('payments, voids and credit notes in any order', () => {
  it('keep paid + credited + remaining = total, nothing negative, as the model says', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.array(step, { minLength: 1, maxLength: 14 }),
        async (amounts, taxed, steps) => {
          const invoice = await issuedInvoice(api, {
            customerId: customer.id,
            lines: amounts.map((unitAmount, i) => ({ description: `Line ${i}`, unitAmount })),
            ...(taxed ? { defaultTaxRates: [vat.id] } : {}),
          });
          const m: Model = { total: invoice.total, status: 'open', payments: [], notes: [] };
          for (const s of steps) {
            await apply(api, invoice.id, m, s);
            check(await getInvoice(api, invoice.id), m);
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
