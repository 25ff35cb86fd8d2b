// Delivering an invoice after it was issued: the e-mail states the total the attached invoice
// shows, names the credit notes (attached) and payments that changed what is due, says when
// the invoice is paid, and offers only what the hosted page offers (no payment online). A paid
// or uncollectible invoice can be sent; a void one or a draft cannot. No internal id is printed
// on a PDF as the buyer's reference.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import { t, type MessageId } from '../../src/documents/i18n.ts';
import { LOCALES } from '../../src/documents/model.ts';
import { pageTexts } from '../documents/pdf-reader.ts';
import { setSettings, waitFor } from '../helpers.ts';
import { startSmtp } from '../mail/smtp.ts';
import {
  assertError,
  createCustomer,
  createInvoice,
  createTaxRate,
  startInvoiceApp,
  tenantApi,
  type Api,
} from './fixtures.ts';

const smtp = await startSmtp();
const server = await startInvoiceApp({ smtpUrl: smtp.url, mailFrom: 'billing@acme.test' });
const { api, key } = await tenantApi(server);
await setSettings(server.db, key.tenantId, {
  legalName: 'ACME Widgets GmbH',
  taxId: 'DE999999999',
  email: 'accounts@acme.test',
  address: { line1: 'Hauptstrasse 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
});
const vat = await createTaxRate(api, { percentage: 19, country: 'DE' });

let mailbox = 0;
/** An open invoice of 1 684,50 € (1 415,55 + 19 % VAT) for a customer of its own. */
async function openInvoice(customerBody: Record<string, unknown> = {}) {
  const email = `ada+${++mailbox}@example.com`;
  const created = await createCustomer(api, { name: 'Ada Lovelace', email, ...customerBody });
  const customer = { id: created.id, email };
  const draft = await createInvoice(api, {
    customerId: customer.id,
    defaultTaxRates: [vat.id],
    daysUntilDue: 14,
    lines: [{ description: 'Analytical engine maintenance', quantity: 1, unitAmount: 141555 }],
  });
  const issued = await api.post(`/v1/invoices/${draft.id}/issue`);
  assert.equal(issued.status, 200, issued.text);
  return { customer, invoice: issued.body };
}

/** Sends the invoice and waits for the message the mail server accepted. */
async function sent(client: Api, id: string, to: string): Promise<ParsedMail> {
  const before = smtp.deliveries.filter((d) => d.to.includes(to)).length;
  const res = await client.post(`/v1/invoices/${id}/send`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.email.status, 'queued');
  let raw = '';
  await waitFor(async () => {
    const mine = smtp.deliveries.filter((d) => d.to.includes(to));
    raw = mine[before]?.raw ?? '';
    return raw !== '';
  }, 'delivered');
  return simpleParser(raw);
}

async function pdfText(pdf: Buffer): Promise<string> {
  return (await pageTexts(pdf)).join('\n');
}

async function apiPdf(path: string): Promise<Buffer> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${key.secret}` },
  });
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

/** Every language's wording of a message, with its placeholders cut out. */
function fragments(id: MessageId): string[] {
  return LOCALES.map((locale) => t(locale, id, { url: '\u0000' }).split('\u0000')[0]!.trim());
}

describe('the invoice e-mail', () => {
  it("states the attached invoice's total after a credit note, and names and attaches it", async () => {
    const { customer, invoice } = await openInvoice();
    const note = await api.post('/v1/credit-notes', { invoiceId: invoice.id, amount: 1999 });
    assert.equal(note.status, 201, note.text);
    const mail = await sent(api, invoice.id, customer.email);
    const text = mail.text!.replace(/[\u00a0\u202f]/g, ' ');
    // The invoice's total, as the attached invoice prints it; then what is still due, and why.
    const invoicePdf = mail.attachments.find((a) => a.filename === `${invoice.number}.pdf`)!;
    assert.ok(invoicePdf, 'the invoice is attached');
    const printed = await pdfText(invoicePdf.content);
    assert.ok(printed.includes('€1,684.50'), 'the PDF says 1,684.50');
    assert.match(text, new RegExp(`invoice ${invoice.number} for €1,684\\.50`));
    assert.doesNotMatch(text, /for €1,664\.51/);
    assert.match(text, new RegExp(`Credit note ${note.body.number} \\(€19\\.99\\)`));
    assert.match(text, /Amount still due: €1,664\.51\./);
    const attached = mail.attachments.find((a) => a.filename === `${note.body.number}.pdf`);
    assert.ok(attached, 'the credit note is attached');
    assert.deepEqual(attached.content, await apiPdf(`/v1/credit-notes/${note.body.id}/pdf`));
    // The page offers no payment: the link is to view the invoice, in no language "pay".
    assert.match(
      text,
      new RegExp(`View online: ${invoice.hostedInvoiceUrl.replace(/[.?]/g, '\\$&')}`),
    );
    assert.doesNotMatch(text, /pay online/i);
    for (const wording of fragments('email.viewOnline')) {
      assert.doesNotMatch(wording, /pay|bezahl|payer|pagar|paga|betalen|zapła/i, wording);
    }
    // The signature stays last.
    assert.match(text, /Kind regards,\nACME Widgets GmbH\s*$/);
  });

  it('names the payments received, and says nothing more when nothing changed', async () => {
    const { customer, invoice } = await openInvoice();
    const plain = await sent(api, invoice.id, customer.email);
    assert.doesNotMatch(plain.text!, /still due|Payments received|Credit note/);
    const paid = await api.post(`/v1/invoices/${invoice.id}/payments`, {
      amount: 50000,
      method: 'bank_transfer',
      receivedAt: '2026-11-20T10:00:00Z',
    });
    assert.equal(paid.status, 201, paid.text);
    const text = (await sent(api, invoice.id, customer.email)).text!;
    assert.match(text, /for €1,684\.50/);
    assert.match(text, /Payments received: €500\.00 on 20 Nov 2026\./);
    assert.match(text, /Amount still due: €1,184\.50\./);
  });

  it('delivers a paid invoice, and says that it is paid', async () => {
    const { customer, invoice } = await openInvoice({ locale: 'de' });
    const paid = await api.post(`/v1/invoices/${invoice.id}/pay`);
    assert.equal(paid.body.status, 'paid');
    const mail = await sent(api, invoice.id, customer.email);
    assert.match(mail.text!, /Diese Rechnung ist vollständig bezahlt\./);
    assert.doesNotMatch(mail.text!, /Noch offener Betrag/);
    assert.match(mail.text!.replace(/[\u00a0\u202f]/g, ' '), /über 1\.684,50 €/);
    const settled = (await api.get(`/v1/invoices/${invoice.id}`)).body;
    assert.equal(settled.status, 'paid', 'sending keeps the status');
  });

  it('delivers an uncollectible invoice, and refuses a void one and a draft with 409', async () => {
    const { customer, invoice } = await openInvoice();
    await api.post(`/v1/invoices/${invoice.id}/mark-uncollectible`);
    const mail = await sent(api, invoice.id, customer.email);
    assert.ok(mail.attachments.some((a) => a.filename === `${invoice.number}.pdf`));
    const other = await openInvoice();
    await api.post(`/v1/invoices/${other.invoice.id}/void`);
    assertError(await api.post(`/v1/invoices/${other.invoice.id}/send`), 409, 'state_invalid');
    const draft = await createInvoice(api, {
      customerId: other.customer.id,
      lines: [{ description: 'x', unitAmount: 100 }],
    });
    assertError(await api.post(`/v1/invoices/${draft.id}/send`), 409, 'state_invalid');
  });

  it('sends a credit note of a paid invoice, and refuses a void credit note with 409', async () => {
    const { invoice } = await openInvoice();
    await api.post(`/v1/invoices/${invoice.id}/pay`);
    const note = (await api.post('/v1/credit-notes', { invoiceId: invoice.id, amount: 500 })).body;
    const res = await api.post(`/v1/credit-notes/${note.id}/send`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.email.status, 'queued');
    await api.post(`/v1/credit-notes/${note.id}/void`);
    assertError(await api.post(`/v1/credit-notes/${note.id}/send`), 409, 'state_invalid');
  });
});

describe('the buyer reference on PDFs', () => {
  it('prints no internal id when the buyer gave no reference, on the invoice or its credit note', async () => {
    const { customer, invoice } = await openInvoice();
    assert.equal(invoice.buyerReference, customer.id, 'the e-invoice keeps its fallback');
    const note = (await api.post('/v1/credit-notes', { invoiceId: invoice.id, amount: 100 })).body;
    for (const path of [`/v1/invoices/${invoice.id}/pdf`, `/v1/credit-notes/${note.id}/pdf`]) {
      const text = await pdfText(await apiPdf(path));
      assert.ok(text.includes(invoice.number), path);
      assert.doesNotMatch(text, /cus_|inv_|cn_/, path);
      assert.doesNotMatch(text, /Your reference/, path);
    }
  });

  it('prints no internal id in any language', async () => {
    for (const locale of LOCALES) {
      const { invoice } = await openInvoice({ locale });
      const text = await pdfText(await apiPdf(`/v1/invoices/${invoice.id}/pdf`));
      assert.doesNotMatch(text, /cus_|inv_/, locale);
      assert.ok(!text.includes(t(locale, 'fact.buyerReference')), locale);
    }
  });

  it('prints the reference the customer or the invoice gave', async () => {
    const { invoice } = await openInvoice({ buyerReference: '04011000-12345-67' });
    const text = await pdfText(await apiPdf(`/v1/invoices/${invoice.id}/pdf`));
    assert.match(text, /Your reference\s*04011000-12345-67/);
    const customer = await createCustomer(api, { name: 'Grace Hopper' });
    const draft = await createInvoice(api, {
      customerId: customer.id,
      buyerReference: 'PO Box 7',
      lines: [{ description: 'x', unitAmount: 100 }],
    });
    const issued = (await api.post(`/v1/invoices/${draft.id}/issue`)).body;
    const note = (await api.post('/v1/credit-notes', { invoiceId: issued.id, amount: 50 })).body;
    for (const path of [`/v1/invoices/${issued.id}/pdf`, `/v1/credit-notes/${note.id}/pdf`]) {
      assert.match(await pdfText(await apiPdf(path)), /Your reference\s*PO Box 7/, path);
    }
  });
});
