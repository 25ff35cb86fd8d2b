// A document's file name comes from its number, and a number may hold `/` (a prefix such as
// `RE/2026/`): the file name, in the API's answers, the hosted page's downloads and e-mail
// attachments, holds none, so no browser or mail client cuts it short.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setSettings } from '../helpers.ts';
import { completeSeller, fetchPage, issuedInvoice, pagePath } from '../hosted/fixtures.ts';
import { startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';

const server = await startInvoiceApp({ hostedPageRateLimit: 1_000_000 });
const { api, key } = await tenantApi(server);
await completeSeller(server.db, key.tenantId);
await setSettings(server.db, key.tenantId, {
  invoicePrefix: 'RE/2026/',
  creditNotePrefix: 'GS/26/',
});

async function disposition(path: string): Promise<string> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${key.secret}` },
  });
  assert.equal(res.status, 200, path);
  await res.arrayBuffer();
  return res.headers.get('content-disposition') ?? '';
}

describe('document file names', () => {
  it('hold no / when the number does, through the API and the hosted page', async () => {
    const invoice = await issuedInvoice(api, { lines: 1 });
    assert.match(invoice.number, /^RE\/2026\//);
    const credit = await api.post('/v1/credit-notes', { invoiceId: invoice.id, amount: 100 });
    assert.equal(credit.status, 201, credit.text);
    const note = credit.body;
    assert.match(note.number, /^GS\/26\//);
    const invoiceName = invoice.number.replaceAll('/', '-');
    const noteName = note.number.replaceAll('/', '-');
    assert.equal(
      await disposition(`/v1/invoices/${invoice.id}/pdf`),
      `inline; filename="${invoiceName}.pdf"`,
    );
    assert.equal(
      await disposition(`/v1/invoices/${invoice.id}/e-invoice?format=ubl`),
      `attachment; filename="${invoiceName}-ubl.xml"`,
    );
    assert.equal(
      await disposition(`/v1/credit-notes/${note.id}/pdf`),
      `inline; filename="${noteName}.pdf"`,
    );
    assert.equal(
      await disposition(`/v1/credit-notes/${note.id}/e-invoice?format=cii`),
      `attachment; filename="${noteName}-cii.xml"`,
    );
    const path = pagePath(invoice.hostedInvoiceUrl);
    const download = await fetchPage(
      server.url,
      `${path}/credit-notes/${encodeURIComponent(note.number)}/pdf`,
    );
    assert.equal(download.status, 200);
    assert.equal(
      download.headers.get('content-disposition'),
      `attachment; filename="${noteName}.pdf"`,
    );
  });
});
