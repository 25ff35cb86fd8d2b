// The hosted page and what changed the invoice after issue: its credit notes, listed with
// their documents under the invoice's own link (and no other invoice's), the due date among
// the totals at the top, and no internal id shown as the buyer's reference.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { completeSeller, customerIn, fetchPage, issuedInvoice, pagePath } from './fixtures.ts';

const server = await startInvoiceApp({ hostedPageRateLimit: 1_000_000 });
const { api, key } = await tenantApi(server);
await completeSeller(server.db, key.tenantId);

const page = (path: string) => fetchPage(server.url, path);

/** The text of the page without its markup, whitespace collapsed. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/[\u00a0\u202f]/g, ' ')
    .replace(/\s+/g, ' ');
}

async function creditNote(invoiceId: string, amount: number) {
  const res = await api.post('/v1/credit-notes', { invoiceId, amount });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function apiBytes(path: string): Promise<Buffer> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${key.secret}` },
  });
  assert.equal(res.status, 200, path);
  return Buffer.from(await res.arrayBuffer());
}

/** The hrefs of the page's links, as written (relative to the page). */
function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

describe('credit notes on the hosted page', () => {
  it('lists the credit notes that are not void, with their documents', async () => {
    const invoice = await issuedInvoice(api, { lines: 1 });
    const kept = await creditNote(invoice.id, 1999);
    const voided = await creditNote(invoice.id, 500);
    assert.equal((await api.post(`/v1/credit-notes/${voided.id}/void`)).status, 200);
    const path = pagePath(invoice.hostedInvoiceUrl);
    const html = (await page(path)).text;
    const text = textOf(html);
    assert.ok(text.includes('Credit notes'), text);
    assert.ok(text.includes(`${kept.number}`), text);
    assert.ok(text.includes('€19.99'), text);
    assert.ok(!text.includes(voided.number), 'a void credit note is not listed');
    const token = path.split('/').pop()!;
    const links = hrefs(html).filter((h) => h.includes('/credit-notes/'));
    // The seller's data allow e-invoices: the page offers them for the invoice and its credit note.
    assert.deepEqual(links, [
      `${token}/credit-notes/${kept.number}/pdf`,
      `${token}/credit-notes/${kept.number}/ubl`,
      `${token}/credit-notes/${kept.number}/cii`,
    ]);
    assert.ok(text.includes(`Credit note ${kept.number} (PDF)`), text);
    for (const format of ['pdf', 'ubl', 'cii'] as const) {
      const res = await page(`${path}/credit-notes/${kept.number}/${format}`);
      assert.equal(res.status, 200, format);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
      const apiPath =
        format === 'pdf'
          ? `/v1/credit-notes/${kept.id}/pdf`
          : `/v1/credit-notes/${kept.id}/e-invoice?format=${format}`;
      assert.deepEqual(res.bytes, await apiBytes(apiPath), format);
    }
    // A void credit note's documents are not offered under the link.
    assert.equal((await page(`${path}/credit-notes/${voided.number}/pdf`)).status, 404);
  });

  it("never opens another invoice's credit note, nor one through a link that opens nothing", async () => {
    const mine = await issuedInvoice(api, { lines: 1 });
    const theirs = await issuedInvoice(api, { lines: 1 });
    const note = await creditNote(theirs.id, 1000);
    const myPath = pagePath(mine.hostedInvoiceUrl);
    for (const path of [
      `${myPath}/credit-notes/${note.number}/pdf`,
      `${myPath}/credit-notes/${note.id}/pdf`,
      `${myPath}/credit-notes/${encodeURIComponent('../')}/pdf`,
      `/i/${'A'.repeat(32)}/credit-notes/${note.number}/pdf`,
    ]) {
      const res = await page(path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
    }
    assert.ok(!textOf((await page(myPath)).text).includes(note.number));
    assert.equal(
      (await page(`${pagePath(theirs.hostedInvoiceUrl)}/credit-notes/${note.number}/pdf`)).status,
      200,
    );
    // A replaced link opens no credit note any more.
    await api.post(`/v1/invoices/${theirs.id}/hosted-link`);
    const old = await page(`${pagePath(theirs.hostedInvoiceUrl)}/credit-notes/${note.number}/pdf`);
    assert.equal(old.status, 404);
  });

  it('shows the due date among the totals at the top', async () => {
    const invoice = await issuedInvoice(api, { dueDate: '2027-01-15' });
    const html = (await page(pagePath(invoice.hostedInvoiceUrl))).text;
    const summary = /<dl class="summary">([\s\S]*?)<\/dl>/.exec(html)?.[1] ?? '';
    assert.ok(textOf(summary).includes('Due date 15 Jan 2027'), textOf(summary));
    const de = await issuedInvoice(api, { locale: 'de', dueDate: '2027-01-15' });
    const deSummary = /<dl class="summary">([\s\S]*?)<\/dl>/.exec(
      (await page(pagePath(de.hostedInvoiceUrl))).text,
    )?.[1];
    assert.ok(textOf(deSummary ?? '').includes('Fällig am 15.01.2027'), deSummary);
  });
});

describe('the buyer reference on the hosted page', () => {
  it('shows no internal id when the buyer gave no reference', async () => {
    const invoice = await issuedInvoice(api);
    const html = (await page(pagePath(invoice.hostedInvoiceUrl))).text;
    assert.doesNotMatch(html, /cus_|inv_/);
    assert.ok(!textOf(html).includes('Your reference'));
  });

  it("shows the customer's reference when it gave one", async () => {
    const customer = await customerIn(api, 'en');
    await api.patch(`/v1/customers/${customer.id}`, { buyerReference: 'Leitweg 991-12345-67' });
    const invoice = await issuedInvoice(api, { customerId: customer.id });
    const text = textOf((await page(pagePath(invoice.hostedInvoiceUrl))).text);
    assert.ok(text.includes('Your reference Leitweg 991-12345-67'), text);
    assert.doesNotMatch(text, /cus_|inv_/);
  });
});
