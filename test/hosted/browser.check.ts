// `npm run test:browser`: the hosted invoice page in a real browser, Debian's Chromium driven by
// Playwright (playwright-core, which downloads no browser of its own). Not part of `npm test`,
// which needs nothing but `npm ci`: this needs `apt-get install chromium` (CHROMIUM_PATH, default
// /usr/bin/chromium).
//
// It checks what only a browser shows: the page in three languages (number, totals, status),
// the downloads as a person gets them (the very bytes the API serves), axe-core's WCAG 2.2 AA
// rules (no serious or critical violation), that nothing changes with JavaScript off (the same
// DOM and the same pixels), a replaced link's 404, and that a 20-line invoice prints on one A4
// page. Screenshots (desktop 1280 px, mobile 390 px, print) go to ./data/screenshots/.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { getDocumentProxy } from 'unpdf';
import { formatAmount, t } from '../../src/documents/i18n.ts';
import type { DocumentLocale } from '../../src/documents/model.ts';
import { startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { completeSeller, issuedInvoice, type IssuedOnPage } from './fixtures.ts';

const SCREENSHOTS = path.resolve('data/screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DESKTOP = { width: 1280, height: 900 };
const MOBILE = { width: 390, height: 844 };

const server = await startInvoiceApp({ hostedPageRateLimit: 1_000_000 });
const { api, key } = await tenantApi(server);
await completeSeller(server.db, key.tenantId);

let browser: Browser;
before(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
after(() => browser?.close());

async function open(url: string, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP, ...options });
  const page = await context.newPage();
  const response = await page.goto(url);
  assert.equal(response?.status(), 200, url);
  return page;
}

async function apiBytes(pathname: string): Promise<Buffer> {
  const res = await fetch(`${server.url}${pathname}`, {
    headers: { authorization: `Bearer ${key.secret}` },
  });
  assert.equal(res.status, 200, pathname);
  return Buffer.from(await res.arrayBuffer());
}

const invoices: Partial<Record<DocumentLocale, IssuedOnPage>> = {};

/** An invoice with a payment and a bounced (void) one, and a credit note. */
async function partlyPaid(): Promise<IssuedOnPage> {
  const invoice = await issuedInvoice(api, { locale: 'en', lines: 2 });
  const paid = await api.post(`/v1/invoices/${invoice.id}/payments`, {
    amount: 10_000,
    method: 'bank_transfer',
  });
  assert.equal(paid.status, 201, paid.text);
  const bounced = await api.post(`/v1/invoices/${invoice.id}/payments`, {
    amount: 5_000,
    method: 'direct_debit',
  });
  assert.equal((await api.post(`/v1/payments/${bounced.body.id}/void`)).status, 200);
  const credit = await api.post('/v1/credit-notes', {
    invoiceId: invoice.id,
    amount: 2_000,
    reason: 'order_change',
  });
  assert.equal(credit.status, 201, credit.text);
  return invoice;
}

describe('the hosted page in Chromium', () => {
  for (const locale of ['en', 'de', 'pl'] as const) {
    it(`shows number, totals and status in ${locale}`, async () => {
      const invoice = await issuedInvoice(api, { locale, lines: 4 });
      invoices[locale] = invoice;
      const page = await open(invoice.hostedInvoiceUrl);
      assert.equal(await page.getAttribute('html', 'lang'), locale);
      const heading = await page.locator('h1').innerText();
      assert.equal(heading, `${t(locale, 'document.invoice')} ${invoice.number}`);
      const status = await page.locator('.status').innerText();
      assert.ok(status.includes(t(locale, 'hosted.status.open')), status);
      const total = formatAmount(invoice.total, 'eur', locale);
      assert.equal(await page.locator('.summary-total dd').innerText(), total);
      assert.equal(await page.locator('.summary-remaining dd').innerText(), total);
      assert.equal(await page.locator('.totals .total td').innerText(), total);
      assert.equal(await page.locator('.lines tbody tr').count(), 4);
      await page.screenshot({
        path: path.join(SCREENSHOTS, `desktop-${locale}.png`),
        fullPage: true,
      });
      await page.context().close();
    });
  }

  it('downloads the PDF and the e-invoices as a person does: the stored bytes', async () => {
    const invoice = invoices.en ?? (await issuedInvoice(api));
    const page = await open(invoice.hostedInvoiceUrl);
    const expected = {
      pdf: await apiBytes(`/v1/invoices/${invoice.id}/pdf`),
      ubl: await apiBytes(`/v1/invoices/${invoice.id}/e-invoice?format=ubl`),
      cii: await apiBytes(`/v1/invoices/${invoice.id}/e-invoice?format=cii`),
    };
    for (const [format, bytes] of Object.entries(expected)) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator(`.downloads a[href$="/${format}"]`).click(),
      ]);
      const saved = await readFile((await download.path())!);
      assert.ok(saved.equals(bytes), `${format}: ${saved.length} bytes, expected ${bytes.length}`);
      assert.match(download.suggestedFilename(), /^INV-/);
    }
    await page.context().close();
  });

  it('has no serious or critical accessibility violation (axe-core, WCAG 2.2 AA)', async () => {
    const paid = await issuedInvoice(api, { locale: 'de' });
    await api.post(`/v1/invoices/${paid.id}/pay`);
    const overdue = await issuedInvoice(api, { dueDate: '2020-01-15' });
    const pages = [invoices.en!, invoices.de!, invoices.pl!, paid, overdue, await partlyPaid()];
    for (const [index, invoice] of pages.entries()) {
      for (const viewport of [DESKTOP, MOBILE]) {
        const page = await open(invoice.hostedInvoiceUrl, { viewport });
        const results = await new AxeBuilder({ page })
          .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
          .analyze();
        const grave = results.violations.filter(
          (v) => v.impact === 'serious' || v.impact === 'critical',
        );
        const others = results.violations.filter((v) => !grave.includes(v));
        if (others.length > 0) {
          console.log(
            `page ${index} ${viewport.width}px, minor:`,
            others.map((v) => v.id),
          );
        }
        assert.deepEqual(
          grave.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
          [],
        );
        assert.ok(results.passes.length > 20, 'axe ran its rules');
        await page.context().close();
      }
    }
  });

  it('shows payments and credits, and says partially paid', async () => {
    const invoice = await partlyPaid();
    const page = await open(invoice.hostedInvoiceUrl);
    assert.ok((await page.locator('.status').innerText()).includes('Partially paid'));
    assert.equal(await page.locator('.summary-paid dd').innerText(), '€100.00');
    assert.equal(await page.locator('.summary-credited dd').innerText(), '€20.00');
    const remaining = formatAmount(invoice.total - 12_000, 'eur', 'en');
    assert.equal(await page.locator('.summary-remaining dd').innerText(), remaining);
    assert.equal(await page.locator('.payments tbody tr').count(), 2);
    assert.equal(await page.locator('.payments tbody tr.voided del').innerText(), '€50.00');
    await page.screenshot({
      path: path.join(SCREENSHOTS, 'desktop-partly-paid.png'),
      fullPage: true,
    });
    await page.context().close();
  });

  it('is the same page with JavaScript off: the same DOM and the same pixels', async () => {
    const invoice = invoices.de!;
    const on = await open(invoice.hostedInvoiceUrl);
    const off = await open(invoice.hostedInvoiceUrl, { javaScriptEnabled: false });
    assert.equal(await off.content(), await on.content());
    const [a, b] = await Promise.all([
      on.screenshot({ fullPage: true }),
      off.screenshot({ fullPage: true }),
    ]);
    assert.ok(a.equals(b), 'the screenshots differ');
    await writeFile(path.join(SCREENSHOTS, 'desktop-de-no-javascript.png'), b);
    await on.context().close();
    await off.context().close();
  });

  it('answers a replaced link with the plain 404 page', async () => {
    const invoice = await issuedInvoice(api);
    const replaced = await api.post(`/v1/invoices/${invoice.id}/hosted-link`);
    assert.equal(replaced.status, 200);
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const response = await page.goto(invoice.hostedInvoiceUrl);
    assert.equal(response?.status(), 404);
    assert.equal(await page.locator('h1').innerText(), 'This link is not valid.');
    assert.equal(await page.locator('body').innerText(), 'This link is not valid.');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'not-found.png') });
    const axe = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag22aa'])
      .analyze();
    assert.deepEqual(
      axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
      [],
    );
    assert.equal((await page.goto(replaced.body.hostedInvoiceUrl))?.status(), 200);
    await context.close();
  });

  it('fits a phone 390 px wide without sideways scrolling of the page', async () => {
    for (const locale of ['en', 'de', 'pl'] as const) {
      const page = await open(invoices[locale]!.hostedInvoiceUrl, {
        viewport: MOBILE,
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
      });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= MOBILE.width, `${locale}: the page is ${width} px wide`);
      await page.screenshot({
        path: path.join(SCREENSHOTS, `mobile-${locale}.png`),
        fullPage: true,
      });
      await page.context().close();
    }
  });

  it('prints a 20-line invoice on one A4 page', async () => {
    const invoice = await issuedInvoice(api, { locale: 'de', lines: 20 });
    // As a customer prints it once part is paid: three payments on the page too.
    for (const method of ['bank_transfer', 'card', 'cash']) {
      const paid = { amount: 100_000, method };
      assert.equal((await api.post(`/v1/invoices/${invoice.id}/payments`, paid)).status, 201);
    }
    const page = await open(invoice.hostedInvoiceUrl);
    const pdf = await page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true });
    await writeFile(path.join(SCREENSHOTS, 'print-20-lines.pdf'), pdf);
    const document = await getDocumentProxy(new Uint8Array(pdf));
    assert.equal(document.numPages, 1, `${document.numPages} pages`);
    // A picture of the printed page: A4's width at 96 dpi, with the print styles.
    await page.emulateMedia({ media: 'print' });
    await page.setViewportSize({ width: 794, height: 1123 });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'print-20-lines.png'), fullPage: true });
    await page.context().close();
  });
});
