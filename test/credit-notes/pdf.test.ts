// Credit notes on the invoice's PDF: those that are not void, with number, date, reason and
// amount.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
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

  it('lists them on the PDF e-mailed to the customer too', async () => {
    const inv = await openInvoice(api, { customerId: customer.id });
    const note = await credit(api, { invoiceId: inv.id, amount: 500, reason: 'duplicate' });
    assert.equal((await api.post(`/v1/invoices/${inv.id}/send`)).status, 200);
    const outbox = path.join(dataDir, 'outbox');
    const files = (await readdir(outbox)).filter((f) => f.endsWith('.eml'));
    const raw = await readFile(path.join(outbox, files.at(-1)!), 'utf8');
    const match = /Content-Type: application\/pdf[^]*?\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(raw);
    assert.ok(match, 'the e-mail carries the PDF');
    const text = await textOf(new Uint8Array(Buffer.from(match[1]!.replace(/\s/g, ''), 'base64')));
    assert.ok(text.includes(note.number), text);
    assert.match(text, /-€5\.00/);
  });
});
