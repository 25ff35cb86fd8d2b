// Credit notes on the invoice's PDF: those that are not void, with number, date, reason and
// amount.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractText } from 'unpdf';
import { tempDir } from '../invoices/fixtures.ts';
import {
  createCustomer,
  createTaxRate,
  credit,
  openInvoice,
  startInvoiceApp,
  tenantApi,
} from './fixtures.ts';

// Without SMTP_URL the invoice e-mail is written to <dataDir>/outbox as an .eml file.
const dataDir = await tempDir();
const server = await startInvoiceApp({ dataDir });
const { api, key } = await tenantApi(server);
const customer = await createCustomer(api);
const vat = await createTaxRate(api, { percentage: 19 });

const textOf = async (pdf: Uint8Array) => (await extractText(pdf, { mergePages: true })).text;

async function pdfText(invoiceId: string): Promise<string> {
  const res = await fetch(`${server.url}/v1/invoices/${invoiceId}/pdf`, {
    headers: { authorization: `Bearer ${key.secret}` },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  return textOf(new Uint8Array(await res.arrayBuffer()));
}

describe('the invoice PDF', () => {
  it('lists the invoice’s credit notes with their number and amount, but not void ones', async () => {
    const inv = await openInvoice(api, { customerId: customer.id, defaultTaxRates: [vat.id] });
    const kept = await credit(api, {
      invoiceId: inv.id,
      amount: 2380,
      reason: 'product_unsatisfactory',
    });
    const cancelled = await credit(api, { invoiceId: inv.id, amount: 1234 });
    assert.equal((await api.post(`/v1/credit-notes/${cancelled.id}/void`)).status, 200);
    const text = await pdfText(inv.id);
    assert.match(text, /Credit notes/);
    assert.ok(text.includes(kept.number), text);
    assert.ok(text.includes(kept.createdAt.slice(0, 10)), text);
    assert.match(text, /product\s+unsatisfactory/);
    assert.match(text, /-€23\.80/);
    assert.match(text, /Amount credited\s*€23\.80/);
    assert.ok(!text.includes(cancelled.number), 'a void credit note is not listed');
    assert.ok(!text.includes('€12.34'));
  });

  it('lists no credit notes on an invoice without any', async () => {
    const inv = await openInvoice(api, { customerId: customer.id });
    assert.doesNotMatch(await pdfText(inv.id), /Credit notes/);
  });
});
