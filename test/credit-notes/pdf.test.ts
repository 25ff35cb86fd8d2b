// Issued documents are records (API.md part C): the invoice's PDF and e-invoices never change
// after issue, whatever is paid or credited; a credit note has a document of its own that
// names the invoice it corrects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDate } from '../../src/documents/i18n.ts';
import { pageTexts, PdfFile } from '../documents/pdf-reader.ts';
import { setSettings } from '../helpers.ts';
import {
  createCustomer,
  credit,
  einvoiceTenant,
  openInvoice,
  startInvoiceApp,
} from './fixtures.ts';

const server = await startInvoiceApp();
// A seller and a buyer complete for EN 16931 and Peppol (Dutch seller, Belgian buyer).
const { api, key, customer, vat } = await einvoiceTenant(server);

async function fetchBytes(
  path: string,
): Promise<{ status: number; type: string | null; bytes: Buffer; text: string }> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${key.secret}` },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    bytes,
    text: bytes.toString('utf8'),
  };
}

const allText = async (pdf: Buffer) => (await pageTexts(pdf)).join('\n');

describe('issued documents are records', () => {
  it('serves an issued invoice’s PDF and e-invoices byte-identical before and after payments and credit notes', async () => {
    const inv = await openInvoice(api, {
      customerId: customer.id,
      defaultTaxRates: [vat.id],
      daysUntilDue: 14,
    });
    const before = {
      pdf: await fetchBytes(`/v1/invoices/${inv.id}/pdf`),
      ubl: await fetchBytes(`/v1/invoices/${inv.id}/e-invoice`),
      cii: await fetchBytes(`/v1/invoices/${inv.id}/e-invoice?format=cii`),
    };
    assert.equal(before.pdf.status, 200);
    assert.equal(before.pdf.type, 'application/pdf');
    assert.equal(before.ubl.status, 200, before.ubl.text);
    assert.match(before.ubl.type!, /application\/xml/);
    assert.match(
      before.ubl.text,
      /<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/,
    );
    assert.match(before.cii.text, /CrossIndustryInvoice/);
    // The PDF is a Factur-X hybrid carrying exactly the CII served.
    const file = new PdfFile(before.pdf.bytes);
    const spec = file.object(file.refs(file.catalog, 'AF')[0]!).dictionary;
    assert.match(spec, /\/AFRelationship \/Alternative/);
    const embedded = file.object(/\/EF <<\s*\/F (\d+ 0 R)/.exec(spec)![1]!);
    assert.equal(embedded.stream!.toString('utf8'), before.cii.text);
    assert.match(file.xmp, /<pdfaid:part>3<\/pdfaid:part>/);

    await credit(api, { invoiceId: inv.id, amount: 1210, reason: 'order_change' });
    const partial = await api.post(`/v1/invoices/${inv.id}/payments`, {
      amount: 5000,
      method: 'bank_transfer',
    });
    assert.equal(partial.status, 201, partial.text);
    assert.equal((await api.post(`/v1/payments/${partial.body.id}/void`)).status, 200);
    assert.equal((await api.post(`/v1/invoices/${inv.id}/pay`)).status, 200);
    await setSettings(server.db, key.tenantId, { legalName: 'Renamed B.V.' });
    for (const [name, path] of [
      ['pdf', `/v1/invoices/${inv.id}/pdf`],
      ['ubl', `/v1/invoices/${inv.id}/e-invoice?format=ubl`],
      ['cii', `/v1/invoices/${inv.id}/e-invoice?format=cii`],
    ] as const) {
      const after = await fetchBytes(path);
      assert.ok(after.bytes.equals(before[name].bytes), `${name} changed after issue`);
    }
    await setSettings(server.db, key.tenantId, { legalName: 'Tulip Software B.V.' });
  });

  it('prints totals on the invoice that reconcile: paid + credited + remaining = total', async () => {
    const inv = await openInvoice(api, { customerId: customer.id, defaultTaxRates: [vat.id] });
    const text = await allText((await fetchBytes(`/v1/invoices/${inv.id}/pdf`)).bytes);
    // At issue nothing is paid or credited: the amount due is the total.
    assert.equal(inv.amountPaid + inv.amountCredited + inv.amountRemaining, inv.total);
    assert.ok(text.includes('Amount due'));
    const total = (inv.total / 100).toFixed(2);
    assert.ok(text.split(total).length - 1 >= 2, `total €${total} and amount due both printed`);
  });

  it('gives every credit note its own document, naming the invoice it corrects', async () => {
    const inv = await openInvoice(api, { customerId: customer.id, defaultTaxRates: [vat.id] });
    const note = await credit(api, {
      invoiceId: inv.id,
      amount: 2420,
      reason: 'product_unsatisfactory',
    });
    const pdf = await fetchBytes(`/v1/credit-notes/${note.id}/pdf`);
    assert.equal(pdf.status, 200);
    const text = await allText(pdf.bytes);
    assert.ok(text.includes('Credit note'), text);
    assert.ok(text.includes(note.number));
    assert.ok(text.includes(inv.number));
    assert.ok(text.includes(formatDate(inv.issuedAt.slice(0, 10), 'en')));
    assert.ok(text.includes('24.20'), 'the credited total');
    assert.ok(
      text.includes('20.00') && text.includes('4.20'),
      'its own breakdown: 20.00 + 4.20 VAT',
    );
    const ubl = await fetchBytes(`/v1/credit-notes/${note.id}/e-invoice`);
    assert.equal(ubl.status, 200, ubl.text);
    assert.match(ubl.text, /<CreditNote xmlns/);
    assert.match(
      ubl.text,
      new RegExp(
        `<cac:BillingReference>\\s*<cac:InvoiceDocumentReference>\\s*<cbc:ID>${inv.number}`,
      ),
    );
    const again = await fetchBytes(`/v1/credit-notes/${note.id}/pdf`);
    assert.ok(again.bytes.equals(pdf.bytes));
  });

  it('answers 409 einvoice_incomplete with what is missing, and 409 for drafts', async () => {
    const bare = await createCustomer(api, { name: 'No Address Ltd', email: 'x@example.com' });
    const inv = await openInvoice(api, { customerId: bare.id, defaultTaxRates: [vat.id] });
    const res = await api.get(`/v1/invoices/${inv.id}/e-invoice`);
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'einvoice_incomplete');
    assert.ok(res.body.error.missing.includes('customer.address.country'), res.text);
    // The PDF is still served, as a plain PDF/A-3 without Factur-X.
    const pdf = await fetchBytes(`/v1/invoices/${inv.id}/pdf`);
    assert.equal(pdf.status, 200);
    assert.equal(new PdfFile(pdf.bytes).refs(new PdfFile(pdf.bytes).catalog, 'AF').length, 0);
    const draft = await api.post('/v1/invoices', {
      customerId: customer.id,
      currency: 'eur',
      lines: [{ description: 'x', unitAmount: 100 }],
    });
    const drafted = await api.get(`/v1/invoices/${draft.body.id}/e-invoice`);
    assert.equal(drafted.status, 409);
    assert.equal(drafted.body.error.code, 'state_invalid');
  });

  it('sends a credit note by e-mail, queued like an invoice', async () => {
    const inv = await openInvoice(api, { customerId: customer.id, defaultTaxRates: [vat.id] });
    const note = await credit(api, { invoiceId: inv.id, amount: 1000 });
    const sent = await api.post(`/v1/credit-notes/${note.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.email.status, 'queued');
    const { rows } = await server.db.query(
      `SELECT kind, recipient, subject FROM mail_outbox WHERE subject_id = $1`,
      [note.id],
    );
    assert.deepEqual(rows[0], {
      kind: 'credit_note',
      recipient: 'ap@brussels.example',
      subject: `Credit note ${note.number} from Tulip Software B.V.`,
    });
  });
});
