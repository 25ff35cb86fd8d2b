// The invoices and events pages in Chromium (`npm run test:browser`): each page signed in as each
// role, held to axe-core's WCAG 2.2 AA rules (no serious or critical violation); a payment recorded
// through the invoice's form with JavaScript off; screenshots in English at desktop width and
// German at mobile width (VIEWS) into ./data/screenshots/console/ (git-ignored). axe-core runs in
// the page and waits forever where scripts are off, so the pages it checks are visited with scripts
// on (the console has none to run).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { Role } from '../../src/console/roles.ts';
import { createCustomer, createInvoice, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { completeSeller, issuedInvoice } from '../hosted/fixtures.ts';
import { consoleUser, screenshot } from './browser.ts';
import {
  assertAccessible,
  chromiumForChecks,
  DESKTOP,
  MOBILE,
  SCREENSHOTS,
  signInThroughForm,
  VIEWS,
} from './chromium.ts';

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
await completeSeller(server.db, key.tenantId);
const customer = await createCustomer(api, { name: 'Ada Lovelace' });
const invoice = await issuedInvoice(api, { customerId: customer.id });
await issuedInvoice(api, { dueDate: '2020-01-15', customerId: customer.id });
await createInvoice(api, {
  customerId: customer.id,
  lines: [{ description: 'Draft work', quantity: 1, unitAmount: 9900 }],
});
const paid = await issuedInvoice(api, { customerId: customer.id, lines: 1 });
assert.equal((await api.post(`/v1/invoices/${paid.id}/pay`, { method: 'card' })).status, 200);
const credited = await api.post('/v1/credit-notes', { invoiceId: paid.id, amount: 1000 });
assert.equal(credited.status, 201, credited.text);
const origin = server.url.replace('127.0.0.1', 'localhost');

const chromium = chromiumForChecks();

/** Signed in through the form as `role` speaking `locale`, in test mode. */
async function signIn(
  role: Role,
  locale: string,
  viewport: { width: number; height: number },
  javaScriptEnabled = true,
): Promise<Page> {
  const user = await consoleUser(server, role, { tenantId: key.tenantId, locale });
  const page = await signInThroughForm(chromium(), origin, key.tenantId, user.email, {
    viewport,
    javaScriptEnabled,
  });
  page.setDefaultTimeout(60_000);
  return page;
}

async function checked(page: Page, url: string, name?: string): Promise<void> {
  const response = await page.goto(`${origin}${url}`);
  assert.equal(response?.status(), 200, url);
  await assertAccessible(page, url);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  assert.ok(overflow <= 0, `${url} scrolls sideways by ${overflow} px`);
  if (name) await screenshot(page, path.join(SCREENSHOTS, `${name}.png`));
}

/** The first event's page, as its list links it. */
async function firstEvent(page: Page): Promise<string> {
  await page.goto(`${origin}/console/events`);
  const href = await page.locator('table.list tbody a').first().getAttribute('href');
  assert.ok(href);
  return href;
}

describe('invoices and events in Chromium', () => {
  for (const { locale, width, viewport } of VIEWS) {
    it(`shows the pages in ${locale} at ${viewport.width} px, accessibly`, async () => {
      const page = await signIn('admin', locale, viewport);
      await checked(page, '/console/invoices', `invoices-${locale}-${width}`);
      await checked(page, `/console/invoices/${invoice.id}`, `invoice-${locale}-${width}`);
      await checked(page, `/console/invoices/${paid.id}`, `invoice-paid-${locale}-${width}`);
      await checked(page, '/console/invoices?status=void', `invoices-empty-${locale}-${width}`);
      await checked(page, '/console/events', `events-${locale}-${width}`);
      await checked(page, await firstEvent(page), `event-${locale}-${width}`);
      await page.context().close();
    });
  }

  for (const role of ['finance', 'viewer'] as const) {
    it(`shows every page to ${role}`, async () => {
      const page = await signIn(role, 'en', DESKTOP);
      await checked(page, '/console/invoices');
      await checked(page, `/console/invoices/${invoice.id}`);
      assert.equal(await page.locator('#pay-amount').count(), role === 'finance' ? 1 : 0);
      await checked(page, '/console/events');
      await checked(page, await firstEvent(page));
      await page.context().close();
    });
  }

  it('records a payment through the form with JavaScript off', async () => {
    const page = await signIn('finance', 'en', MOBILE, false);
    await page.goto(`${origin}/console/invoices/${invoice.id}`);
    await page.fill('#pay-amount', '10.00');
    await page.selectOption('#pay-method', 'cash');
    await page.fill('#pay-reference', 'Till 7');
    await page.click('#record-payment + form button[type=submit]');
    assert.equal(new URL(page.url()).pathname, `/console/invoices/${invoice.id}`);
    assert.ok((await page.content()).includes('Till 7'));
    await page.screenshot({
      path: path.join(SCREENSHOTS, 'invoice-after-payment-en-mobile.png'),
      fullPage: true,
    });
    const shown = (await api.get(`/v1/invoices/${invoice.id}`)).body;
    assert.equal(shown.amountPaid, 1000);
    await page.context().close();
  });
});
