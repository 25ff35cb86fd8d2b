// The hosted invoice page (API.md part C): server-rendered HTML without any script, in the
// customer's language, showing the invoice as it is now, with downloads of the very documents
// the API serves; its own headers; one plain 404 for every link that opens nothing; a request
// budget per client address.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { t } from '../../src/documents/i18n.ts';
import { LOCALES } from '../../src/documents/model.ts';
import { pageStatus } from '../../src/hosted/page.ts';
import { setSettings } from '../helpers.ts';
import { startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import {
  completeSeller,
  customerIn,
  fetchPage,
  issuedInvoice,
  pagePath,
  SELLER,
} from './fixtures.ts';

const server = await startInvoiceApp({ hostedPageRateLimit: 1_000_000 });
const { api, key } = await tenantApi(server);
await completeSeller(server.db, key.tenantId);

const page = (path: string, headers?: Record<string, string>) =>
  fetchPage(server.url, path, headers);

/** The text of the page without its markup, whitespace collapsed. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');
}

describe('the hosted invoice page', () => {
  it('shows seller, buyer, number, lines, tax breakdown, totals and how to pay', async () => {
    const invoice = await issuedInvoice(api, { lines: 3 });
    const res = await page(pagePath(invoice.hostedInvoiceUrl));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    const text = textOf(res.text);
    for (const expected of [
      SELLER.legalName,
      'Hafenstraße 12',
      'VAT ID DE123456789',
      'Ada Lovelace Ltd',
      '12 Analytical Row',
      `Invoice ${invoice.number}`,
      'Datenanalyse – Quartalsbericht',
      'Consulting, item 3',
      'VAT breakdown',
      'Subject to VAT',
      '19%',
      'DE89 3704 0044 0532 0130 00',
      'COBADEFFXXX',
      `Payment reference ${invoice.number}`,
      'Thank you for your business.',
    ]) {
      assert.ok(text.includes(expected), `page lacks "${expected}"`);
    }
    // Totals and the state now: nothing paid yet, all of it remaining.
    const money = (minor: number) =>
      `€${Math.floor(minor / 100).toLocaleString('en')}.${String(minor % 100).padStart(2, '0')}`;
    assert.ok(text.includes(`Total ${money(invoice.total)}`), text);
    assert.ok(text.includes(`Amount paid €0.00`), text);
    assert.ok(text.includes(`Amount remaining ${money(invoice.total)}`), text);
    assert.ok(text.includes('Status: Open'), text);
    assert.match(res.text, /<html lang="en">/);
  });

  it('answers with the page headers: no referrer, no index, no cache, a strict CSP', async () => {
    const invoice = await issuedInvoice(api);
    for (const path of [pagePath(invoice.hostedInvoiceUrl), '/i/unknown-token']) {
      const res = await page(path);
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
      assert.equal(res.headers.get('x-robots-tag'), 'noindex, nofollow', path);
      assert.equal(res.headers.get('cache-control'), 'no-store', path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /style-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /base-uri 'none'/);
      assert.match(csp, /form-action 'none'/);
      assert.doesNotMatch(csp, /script-src|unsafe-inline/);
      assert.ok(res.headers.get('request-id'));
    }
  });

  it('holds no script, no inline style or handler, and no external resource', async () => {
    const invoice = await issuedInvoice(api);
    const { text: html } = await page(pagePath(invoice.hostedInvoiceUrl));
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /\sstyle=/i);
    assert.doesNotMatch(html, /\son[a-z]+=/i);
    assert.doesNotMatch(html, /javascript:/i);
    assert.doesNotMatch(html, /(href|src)="(https?:)?\/\//i);
    const stylesheets = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)];
    assert.equal(stylesheets.length, 1);
  });

  it('serves its one stylesheet, cacheable, at the address the page names', async () => {
    const invoice = await issuedInvoice(api);
    const path = pagePath(invoice.hostedInvoiceUrl);
    const { text: html } = await page(path);
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    const css = await fetchPage(
      server.url,
      new URL(href, `${server.url}${path}`).pathname + '?v=1',
    );
    assert.equal(css.status, 200);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.match(css.headers.get('cache-control') ?? '', /max-age=31536000/);
    assert.match(css.text, /@media print/);
  });

  it('downloads the PDF and both e-invoices: the bytes the API serves', async () => {
    const invoice = await issuedInvoice(api);
    const path = pagePath(invoice.hostedInvoiceUrl);
    const { text: html } = await page(path);
    for (const format of ['pdf', 'ubl', 'cii']) {
      assert.ok(html.includes(`href="${path.split('/').pop()}/${format}"`), format);
    }
    const pdf = await page(`${path}/pdf`);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.match(pdf.headers.get('content-disposition') ?? '', /attachment; filename="INV-/);
    assert.equal(pdf.headers.get('referrer-policy'), 'no-referrer');
    const apiPdf = await fetch(`${server.url}/v1/invoices/${invoice.id}/pdf`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    assert.ok(pdf.bytes.equals(Buffer.from(await apiPdf.arrayBuffer())), 'PDF differs');
    for (const format of ['ubl', 'cii']) {
      const xml = await page(`${path}/${format}`);
      assert.equal(xml.status, 200, format);
      assert.equal(xml.headers.get('content-type'), 'application/xml');
      const apiXml = await fetch(
        `${server.url}/v1/invoices/${invoice.id}/e-invoice?format=${format}`,
        { headers: { authorization: `Bearer ${key.secret}` } },
      );
      assert.equal(apiXml.status, 200);
      assert.ok(xml.bytes.equals(Buffer.from(await apiXml.arrayBuffer())), `${format} differs`);
    }
  });

  it('offers no e-invoice when the data do not allow one', async () => {
    const bare = await tenantApi(server);
    await setSettings(server.db, bare.key.tenantId, { legalName: 'Bare Seller' });
    const invoice = await issuedInvoice(bare.api);
    const path = pagePath(invoice.hostedInvoiceUrl);
    const { status, text: html } = await page(path);
    assert.equal(status, 200);
    assert.ok(html.includes('/pdf"'));
    assert.ok(!html.includes('/ubl"') && !html.includes('/cii"'), 'no e-invoice links');
    assert.equal((await page(`${path}/ubl`)).status, 404);
    assert.equal((await page(`${path}/cii`)).status, 404);
    assert.equal((await page(`${path}/pdf`)).status, 200);
  });

  it('shows the status now: open, overdue, paid, void, uncollectible', async () => {
    const statusOf = async (url: string) =>
      /<p class="status status-([a-z_]+)">/.exec((await page(pagePath(url))).text)?.[1];
    const open = await issuedInvoice(api);
    assert.equal(await statusOf(open.hostedInvoiceUrl), 'open');

    const overdue = await issuedInvoice(api, { dueDate: '2020-01-15' });
    assert.equal(await statusOf(overdue.hostedInvoiceUrl), 'overdue');
    assert.ok(textOf((await page(pagePath(overdue.hostedInvoiceUrl))).text).includes('Overdue'));

    const paid = await issuedInvoice(api);
    assert.equal((await api.post(`/v1/invoices/${paid.id}/pay`)).status, 200);
    const paidPage = textOf((await page(pagePath(paid.hostedInvoiceUrl))).text);
    assert.equal(await statusOf(paid.hostedInvoiceUrl), 'paid');
    assert.ok(paidPage.includes('Amount remaining €0.00'), paidPage);

    // A void invoice keeps its page: the customer learns it need not be paid.
    const voided = await issuedInvoice(api);
    assert.equal((await api.post(`/v1/invoices/${voided.id}/void`)).status, 200);
    assert.equal(await statusOf(voided.hostedInvoiceUrl), 'void');

    const lost = await issuedInvoice(api);
    assert.equal((await api.post(`/v1/invoices/${lost.id}/mark-uncollectible`)).status, 200);
    assert.equal(await statusOf(lost.hostedInvoiceUrl), 'uncollectible');
  });

  it('lists payments, a void one marked, and says partially paid', async () => {
    const invoice = await issuedInvoice(api, { locale: 'de' });
    const first = await api.post(`/v1/invoices/${invoice.id}/payments`, {
      amount: 20_000,
      method: 'bank_transfer',
      receivedAt: '2026-01-10T09:00:00Z',
    });
    assert.equal(first.status, 201, first.text);
    const bounced = await api.post(`/v1/invoices/${invoice.id}/payments`, {
      amount: 5_000,
      method: 'direct_debit',
    });
    assert.equal(bounced.status, 201, bounced.text);
    assert.equal((await api.post(`/v1/payments/${bounced.body.id}/void`)).status, 200);
    const { text: html } = await page(pagePath(invoice.hostedInvoiceUrl));
    const text = textOf(html);
    assert.ok(text.includes('Status: Teilweise bezahlt'), text);
    assert.ok(text.includes('Bezahlt 200,00 €'), text);
    const remaining = (invoice.total - 20_000) / 100;
    assert.ok(text.includes(`Offener Betrag ${remaining.toFixed(2).replace('.', ',')} €`), text);
    assert.ok(text.includes('10.01.2026 Überweisung 200,00 €'), text);
    assert.ok(text.includes('Lastschrift (Storniert) 50,00 €'), text);
    assert.match(html, /<del>50,00\s€<\/del>/);
  });

  it('answers every link that opens nothing with the same plain 404 page', async () => {
    const replaced = await issuedInvoice(api);
    await api.post(`/v1/invoices/${replaced.id}/hosted-link`);
    const expired = await issuedInvoice(api);
    await server.db.query(
      `UPDATE hosted_invoice_links SET expires_at = clock_timestamp() - interval '1 second'
        WHERE tenant_id = $1 AND invoice_id = $2`,
      [key.tenantId, expired.id],
    );
    const paths = [
      '/i/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      '/i/not-a-token',
      pagePath(replaced.hostedInvoiceUrl),
      pagePath(expired.hostedInvoiceUrl),
      `${pagePath(expired.hostedInvoiceUrl)}/pdf`,
      '/i/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/xml',
    ];
    const bodies = new Set<string>();
    for (const path of paths) {
      const res = await page(path);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8', path);
      // Relative to the page's own depth, the stylesheet is the same file.
      bodies.add(res.text.replace(/href="(\.\.\/)*assets/, 'href="assets'));
    }
    assert.equal(bodies.size, 1, [...bodies].join('\n---\n'));
    const body = [...bodies][0]!;
    assert.ok(textOf(body).includes('This link is not valid.'));
    assert.ok(!body.includes(replaced.number) && !body.includes(SELLER.legalName));
    assert.doesNotMatch(body, /<script/i);
    // In the reader's language when the browser asks for one.
    const german = await page('/i/not-a-token', {
      'accept-language': 'fr-CH;q=0.4, de-AT, en;q=0.8',
    });
    assert.match(german.text, /<html lang="de">/);
    assert.ok(german.text.includes('Dieser Link ist nicht gültig.'));
  });

  it("speaks the customer's language: each catalogue's title, dates and amounts", async () => {
    for (const locale of LOCALES) {
      const invoice = await issuedInvoice(api, { locale });
      const { text: html } = await page(pagePath(invoice.hostedInvoiceUrl));
      const title = t(locale, 'hosted.pageTitle', {
        number: invoice.number,
        seller: SELLER.legalName,
      });
      const shown = /<title>([^<]*)<\/title>/.exec(html)?.[1]?.replace(/&#39;/g, "'");
      assert.equal(shown, title.replace(/&/g, '&amp;'), locale);
      assert.match(html, new RegExp(`<html lang="${locale}">`), locale);
      assert.ok(html.includes(t(locale, 'hosted.amountRemaining')), locale);
      assert.ok(html.includes(t(locale, 'hosted.status.open')), locale);
    }
  });

  it('accepts the parameters mail programs add to links', async () => {
    const invoice = await issuedInvoice(api);
    const res = await page(`${pagePath(invoice.hostedInvoiceUrl)}?utm_source=mail&x=1`);
    assert.equal(res.status, 200);
  });
});

describe('the status rule', () => {
  const open = { status: 'open', overdue: false, amountPaid: 0 } as const;
  it('says partially paid when part is paid and the due date has not passed', () => {
    assert.equal(pageStatus({ ...open, amountPaid: 400 }), 'partially_paid');
    assert.equal(pageStatus(open), 'open');
  });
  it('says overdue after the due date, before partially paid', () => {
    assert.equal(pageStatus({ ...open, overdue: true, amountPaid: 400 }), 'overdue');
    assert.equal(pageStatus({ ...open, overdue: true }), 'overdue');
  });
  it('follows the final states', () => {
    for (const status of ['paid', 'void', 'uncollectible'] as const) {
      assert.equal(pageStatus({ ...open, status, overdue: false }), status);
    }
  });
});

/** A GET from another loopback address than the tests' own 127.0.0.1. */
function getFrom(
  localAddress: string,
  url: string,
): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the page request budget', () => {
  it('limits requests per client address, with a small HTML 429 and Retry-After', async () => {
    const limited = await server.start({ hostedPageRateLimit: 3 });
    const invoice = await issuedInvoice(api);
    const path = pagePath(invoice.hostedInvoiceUrl);
    for (let i = 0; i < 3; i++) {
      assert.equal(
        (await fetchPage(limited.url, i === 2 ? '/i/unknown' : path)).status,
        i === 2 ? 404 : 200,
      );
    }
    // The stylesheet does not count.
    assert.equal((await fetchPage(limited.url, '/i/assets/page.css')).status, 200);
    const refused = await fetchPage(limited.url, path, { 'accept-language': 'pl' });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('content-type'), 'text/html; charset=utf-8');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    assert.ok(refused.text.includes('Zbyt wiele żądań'));
    assert.doesNotMatch(refused.text, /<script/i);
    assert.equal(refused.headers.get('referrer-policy'), 'no-referrer');
    // Downloads count too.
    assert.equal((await fetchPage(limited.url, `${path}/pdf`)).status, 429);
    // Another address has its own budget; the API's keys are not touched by it.
    const other = await getFrom('127.0.0.2', `${limited.url}${path}`);
    assert.equal(other.status, 200);
    const whoami = await fetch(`${limited.url}/v1/auth/whoami`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    assert.equal(whoami.status, 200);
  });
});

describe('customers without a language', () => {
  it('falls back to English', async () => {
    const customer = await customerIn(api, 'en');
    await api.patch(`/v1/customers/${customer.id}`, { locale: null });
    const invoice = await issuedInvoice(api, { customerId: customer.id });
    assert.match((await page(pagePath(invoice.hostedInvoiceUrl))).text, /<html lang="en">/);
  });
});
