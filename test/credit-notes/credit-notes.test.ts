// Credit notes over real HTTP on a real database: their effect on the invoice, their tax,
// and voiding them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertError,
  createTaxRate,
  credit,
  getInvoice,
  openInvoice,
  seller as sellerOn,
  startInvoiceApp,
  total,
  type Api,
} from './fixtures.ts';

const server = await startInvoiceApp();
const seller = () => sellerOn(server);

const eventsOf = async (api: Api, type: string) =>
  (await api.get(`/v1/events?type=${type}&limit=100`)).body.data as {
    data: { object: { id: string; status: string; paidAt: string | null } };
  }[];

describe('crediting open invoices', () => {
  it('credits part of an open invoice: it owes less and stays open', async () => {
    const { api, vat, customer, invoice } = await seller();
    const inv = await invoice(); // 100.00 + 19.00 VAT
    const note = await credit(api, {
      invoiceId: inv.id,
      amount: 5950,
      reason: 'order_change',
      memo: 'Half the hours were not needed.',
      metadata: { ticket: 'T-1' },
    });
    assert.match(note.id, /^cn_/);
    assert.deepEqual(
      { ...note, id: undefined, createdAt: undefined },
      {
        id: undefined,
        object: 'credit_note',
        number: 'CN-000001',
        invoiceId: inv.id,
        customerId: customer.id,
        status: 'issued',
        currency: 'eur',
        amount: 5950,
        subtotal: 5000,
        tax: 950,
        totalExcludingTax: 5000,
        total: 5950,
        taxAmounts: [
          {
            taxRateId: vat.id,
            displayName: 'VAT',
            percentage: 19,
            inclusive: false,
            category: 'S',
            exemptionReason: null,
            taxableAmount: 5000,
            amount: 950,
          },
        ],
        creditedAmount: 5950,
        outOfBandAmount: 0,
        lines: [],
        reason: 'order_change',
        sentAt: null,
        email: null,
        memo: 'Half the hours were not needed.',
        metadata: { ticket: 'T-1' },
        environment: 'test',
        createdAt: undefined,
        voidedAt: null,
      },
    );
    const after = await getInvoice(api, inv.id);
    assert.equal(after.status, 'open');
    assert.equal(after.amountCredited, 5950);
    assert.equal(after.amountRemaining, 5950);
    assert.equal(after.paidAt, null);
    const created = await eventsOf(api, 'credit_note.created');
    assert.deepEqual(created[0]!.data.object, note);
    assert.deepEqual((await api.get(`/v1/credit-notes/${note.id}`)).body, note);
  });

  it('pays an open invoice when credit notes cover what remains', async () => {
    const { api, invoice } = await seller();
    const inv = await invoice();
    await credit(api, { invoiceId: inv.id, amount: 1900 });
    const last = await credit(api, { invoiceId: inv.id, amount: 10000, reason: 'duplicate' });
    assert.equal(last.number, 'CN-000002');
    assert.equal(last.creditedAmount, 10000);
    const after = await getInvoice(api, inv.id);
    assert.equal(after.status, 'paid');
    assert.equal(after.amountRemaining, 0);
    assert.equal(after.amountCredited, 11900);
    assert.equal(after.amountPaid, 0);
    assert.ok(after.paidAt);
    assert.equal((await eventsOf(api, 'invoice.paid'))[0]!.data.object.id, inv.id);
  });

  it('records a credit on a paid invoice as refunded outside the API', async () => {
    const { api, invoice } = await seller();
    const inv = await invoice();
    assert.equal((await api.post(`/v1/invoices/${inv.id}/pay`)).status, 200);
    const note = await credit(api, { invoiceId: inv.id, amount: 3000, reason: 'fraudulent' });
    assert.equal(note.outOfBandAmount, 3000);
    assert.equal(note.creditedAmount, 0);
    const after = await getInvoice(api, inv.id);
    assert.equal(after.status, 'paid');
    assert.equal(after.amountPaid, 11900);
    assert.equal(after.outOfBandAmount, 3000);
    assert.equal(after.amountCredited, 0);
    assert.equal(after.amountRemaining, 0);
    // Voiding it takes the refund back; the invoice stays paid.
    const voided = await api.post(`/v1/credit-notes/${note.id}/void`);
    assert.equal(voided.status, 200, voided.text);
    const back = await getInvoice(api, inv.id);
    assert.equal(back.status, 'paid');
    assert.equal(back.outOfBandAmount, 0);
    assert.equal(back.paidAt, after.paidAt);
  });
});

describe('voiding credit notes', () => {
  it('restores the amounts exactly and reopens an invoice the credit note had paid', async () => {
    const { api, invoice } = await seller();
    const inv = await invoice();
    const first = await credit(api, { invoiceId: inv.id, amount: 4000 });
    const second = await credit(api, { invoiceId: inv.id, amount: 7900 });
    assert.equal((await getInvoice(api, inv.id)).status, 'paid');

    const res = await api.post(`/v1/credit-notes/${second.id}/void`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'void');
    assert.ok(res.body.voidedAt);
    assert.equal(res.body.number, second.number);
    const reopened = await getInvoice(api, inv.id);
    assert.equal(reopened.status, 'open');
    assert.equal(reopened.paidAt, null);
    assert.equal(reopened.amountCredited, 4000);
    assert.equal(reopened.amountRemaining, 7900);
    const updated = await eventsOf(api, 'invoice.updated');
    assert.equal(updated[0]!.data.object.id, inv.id);
    assert.equal(updated[0]!.data.object.status, 'open');
    assert.equal(updated[0]!.data.object.paidAt, null);
    assert.deepEqual((await eventsOf(api, 'credit_note.voided'))[0]!.data.object, res.body);

    assertError(await api.post(`/v1/credit-notes/${second.id}/void`), 409, 'state_invalid');
    assert.equal((await api.post(`/v1/credit-notes/${first.id}/void`)).status, 200);
    const restored = await getInvoice(api, inv.id);
    assert.equal(restored.amountCredited, 0);
    assert.equal(restored.amountRemaining, 11900);
    // What was voided no longer counts against the total: it can be credited again in full.
    await credit(api, { invoiceId: inv.id, amount: 11900 });
  });

  it('refuses to void a credit note whose invoice was voided since', async () => {
    const { api, invoice } = await seller();
    const inv = await invoice();
    const note = await credit(api, { invoiceId: inv.id, amount: 1000 });
    assert.equal((await api.post(`/v1/invoices/${inv.id}/void`)).status, 200);
    assertError(await api.post(`/v1/credit-notes/${note.id}/void`), 409, 'state_invalid');
    assert.equal((await api.get(`/v1/credit-notes/${note.id}`)).body.status, 'issued');
  });
});

describe('tax on credit notes', () => {
  it('credits each rate’s tax exactly when the credits of a two-rate invoice reach its total', async () => {
    const { api, vat, reduced, invoice } = await seller();
    const inv = await invoice({
      lines: [
        { description: 'Consulting', unitAmount: 3333 },
        { description: 'Books', unitAmount: 1234, taxRates: [reduced.id] },
      ],
    });
    // 19 % of 33.33 = 6.33, 7 % of 12.34 = 0.86: total 52.86.
    assert.deepEqual(
      inv.taxAmounts.map((t: { amount: number }) => t.amount),
      [633, 86],
    );
    assert.equal(inv.total, 5286);
    const notes: any[] = [];
    for (const amount of [1000, 1, 2000, 2285]) {
      notes.push(await credit(api, { invoiceId: inv.id, amount }));
    }
    const taxOf = (id: string) =>
      total(
        notes,
        (n) => n.taxAmounts.find((t: { taxRateId: string }) => t.taxRateId === id).amount,
      );
    assert.equal(taxOf(vat.id), 633);
    assert.equal(taxOf(reduced.id), 86);
    assert.equal(
      total(notes, (n) => n.totalExcludingTax),
      inv.totalExcludingTax,
    );
    for (const n of notes) assert.equal(n.subtotal + n.tax, n.total);
    assert.equal((await getInvoice(api, inv.id)).status, 'paid');
  });

  it('credits an invoice line with its own tax rates, at most what the line was charged', async () => {
    const { api, vat, reduced, invoice } = await seller();
    const inv = await invoice({
      lines: [
        { description: 'Consulting', unitAmount: 3333 },
        { description: 'Books', unitAmount: 1234, taxRates: [reduced.id] },
      ],
    });
    const books = inv.lines[1].id;
    const note = await credit(api, {
      invoiceId: inv.id,
      reason: 'product_unsatisfactory',
      lines: [
        { description: 'Returned books', amount: 1320, invoiceLineId: books },
        { description: 'Goodwill', amount: 100 },
      ],
    });
    assert.equal(note.total, 1420);
    assert.deepEqual(
      note.lines.map((l: Record<string, unknown>) => ({ ...l, id: undefined })),
      [
        {
          id: undefined,
          description: 'Returned books',
          amount: 1320,
          amountExcludingTax: 1234,
          tax: 86,
          invoiceLineId: books,
        },
        {
          id: undefined,
          description: 'Goodwill',
          amount: 100,
          amountExcludingTax: 84,
          tax: 16,
          invoiceLineId: null,
        },
      ],
    );
    const taxes = Object.fromEntries(
      note.taxAmounts.map((t: { taxRateId: string; amount: number }) => [t.taxRateId, t.amount]),
    );
    // The goodwill line is split over what remained after the books: 33.33 of amount and 6.33
    // of the standard rate's tax (the reduced rate's was all credited with the books).
    assert.deepEqual(taxes, { [vat.id]: 16, [reduced.id]: 86 });
    assert.equal((await api.get(`/v1/credit-notes/${note.id}`)).body.lines.length, 2);
    // The books line is fully credited: not one cent more, even in another credit note.
    assertError(
      await api.post('/v1/credit-notes', {
        invoiceId: inv.id,
        lines: [{ description: 'More books', amount: 1, invoiceLineId: books }],
      }),
      400,
      'parameter_invalid',
      'lines.0.amount',
    );
    // A line of another invoice is not a line of this one.
    const other = await invoice();
    assertError(
      await api.post('/v1/credit-notes', {
        invoiceId: inv.id,
        lines: [{ description: 'x', amount: 1, invoiceLineId: other.lines[0].id }],
      }),
      404,
      'resource_missing',
      'lines.0.invoiceLineId',
    );
    // Voiding the credit note frees the line again.
    await api.post(`/v1/credit-notes/${note.id}/void`);
    await credit(api, {
      invoiceId: inv.id,
      lines: [{ description: 'Returned books', amount: 1320, invoiceLineId: books }],
    });
  });
});

describe('tax-inclusive invoices', () => {
  it('credits gross amounts of an inclusive invoice with the tax taken out', async () => {
    const { api, customer } = await seller();
    const included = await createTaxRate(api, { percentage: 19, inclusive: true });
    const inv = await openInvoice(api, {
      customerId: customer.id,
      defaultTaxRates: [included.id],
      lines: [{ description: 'Ticket', unitAmount: 11900 }],
    });
    assert.deepEqual([inv.total, inv.tax], [11900, 1900]);
    const note = await credit(api, {
      invoiceId: inv.id,
      lines: [{ description: 'Refund', amount: 5950, invoiceLineId: inv.lines[0].id }],
    });
    assert.deepEqual(
      [note.subtotal, note.totalExcludingTax, note.tax, note.total],
      [5950, 5000, 950, 5950],
    );
    assert.equal(note.taxAmounts[0].inclusive, true);
    const rest = await credit(api, { invoiceId: inv.id, amount: 5950 });
    assert.equal(note.tax + rest.tax, 1900);
  });
});
