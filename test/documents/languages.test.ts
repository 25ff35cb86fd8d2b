// Documents and e-mails speak the customer's language (else the tenant's), with that
// language's number and date formats, and print every name the API accepts as it was sent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDate } from '../../src/documents/i18n.ts';
import { createCustomer, createTaxRate, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { pageTexts } from './pdf-reader.ts';

const server = await startInvoiceApp({ runWorker: false });
const { api, key } = await tenantApi(server);
const vat = await createTaxRate(api, { percentage: 19 });

async function issuedPdfText(customerBody: Record<string, unknown>) {
  const customer = await createCustomer(api, customerBody);
  const draft = await api.post('/v1/invoices', {
    customerId: customer.id,
    currency: 'eur',
    defaultTaxRates: [vat.id],
    daysUntilDue: 30,
    lines: [{ description: 'Beratung', quantity: 10, unitAmount: 123456 }],
  });
  const issued = await api.post(`/v1/invoices/${draft.body.id}/issue`);
  assert.equal(issued.status, 200, issued.text);
  const res = await fetch(`${server.url}/v1/invoices/${draft.body.id}/pdf`, {
    headers: { authorization: `Bearer ${key.secret}` },
  });
  const text = (await pageTexts(Buffer.from(await res.arrayBuffer()))).join('\n');
  return { invoice: issued.body, text };
}

describe('languages of documents and e-mails', () => {
  it('gives a de customer "Rechnung" with German number and date formats', async () => {
    const { invoice, text } = await issuedPdfText({ name: 'Müller GmbH', locale: 'de' });
    assert.ok(text.includes('Rechnung'), text);
    assert.ok(text.includes('12.345,60 €'), 'German amounts');
    assert.ok(text.includes(formatDate(invoice.issuedAt.slice(0, 10), 'de')), 'German dates');
    assert.match(formatDate('2026-11-24', 'de'), /^24\.11\.2026$/);
    assert.ok(text.includes('Müller GmbH'));
  });

  it("falls back to the tenant's language, and prints Polish, Greek and Cyrillic names exactly", async () => {
    await api.patch('/v1/settings', { locale: 'pl' });
    const { text } = await issuedPdfText({ name: 'Zakład Łódź Sp. z o.o. / Αθήνα / Москва' });
    assert.ok(text.includes('Faktura'), text);
    assert.ok(text.includes('Zakład Łódź Sp. z o.o. / Αθήνα / Москва'), text);
    await api.patch('/v1/settings', { locale: 'en' });
  });

  it("writes the invoice e-mail in the customer's language", async () => {
    const customer = await createCustomer(api, { name: 'Dupont SA', locale: 'fr-BE' });
    const draft = await api.post('/v1/invoices', {
      customerId: customer.id,
      currency: 'eur',
      lines: [{ description: 'Conseil', unitAmount: 10000 }],
    });
    await api.post(`/v1/invoices/${draft.body.id}/issue`);
    assert.equal((await api.post(`/v1/invoices/${draft.body.id}/send`)).status, 200);
    const { rows } = await server.db.query(
      `SELECT subject, body FROM mail_outbox WHERE subject_id = $1`,
      [draft.body.id],
    );
    assert.match(rows[0].subject, /^Facture /);
    assert.match(rows[0].body, /100,00\s€/);
  });

  it('refuses a language without a catalogue', async () => {
    const res = await api.post('/v1/customers', { name: 'X', locale: 'ja' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.param, 'locale');
  });
});
