// `npm run test:browser` (with the hosted page's check): the console in Debian's Chromium, driven
// by playwright-core. It signs in through the form, visits every page, holds each to axe-core's
// WCAG 2.2 AA rules (no serious or critical violation), and takes screenshots in English at desktop
// width and German at mobile width (VIEWS) into ./data/screenshots/console/ (git-ignored). axe-core
// is a script run in the page, so those visits have JavaScript on (the console has none of its own:
// the pages are the same); a walk with JavaScript off signs in, switches the environment, opens
// every page and sends a form.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createCustomer, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
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
for (let i = 0; i < 3; i++) await issuedInvoice(api, { customerId: customer.id });
await issuedInvoice(api, { dueDate: '2020-01-15', customerId: customer.id });
await createCustomer(api, { name: 'Grace Hopper', email: 'grace@example.com' });
// Secure cookies are kept on http://localhost (a secure context), as the contract says.
const origin = server.url.replace('127.0.0.1', 'localhost');

const chromium = chromiumForChecks();

/** A browser signed in through the form as an admin (or `role`) speaking `locale`. */
async function signIn(
  locale: string,
  viewport: { width: number; height: number },
  javaScriptEnabled = true,
  user?: { email: string },
): Promise<Page> {
  user ??= await consoleUser(server, 'admin', { tenantId: key.tenantId, locale });
  return signInThroughForm(chromium(), origin, key.tenantId, user.email, {
    viewport,
    javaScriptEnabled,
  });
}

async function checked(page: Page, url: string, name: string): Promise<void> {
  const response = await page.goto(`${origin}${url}`);
  assert.equal(response?.status(), 200, url);
  await assertAccessible(page, url);
  await screenshot(page, path.join(SCREENSHOTS, `${name}.png`));
}

describe('the console in Chromium', () => {
  for (const { locale, width, viewport } of VIEWS) {
    it(`signs in and shows every page in ${locale} at ${viewport.width} px, accessibly`, async () => {
      const page = await signIn(locale, viewport);
      assert.equal(await page.getAttribute('html', 'lang'), locale);
      await checked(page, '/console', `overview-${locale}-${width}`);
      assert.equal(await page.locator('svg rect.bar').count(), 12);
      await checked(page, '/console/customers', `customers-${locale}-${width}`);
      await checked(page, '/console/customers?q=gra', `search-${locale}-${width}`);
      await checked(page, `/console/customers/${customer.id}`, `customer-${locale}-${width}`);
      await checked(page, '/console/settings/users', `users-${locale}-${width}`);
      // No horizontal scrolling of the page itself at 375 px.
      const overflow = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const wider = [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > width + 1)
          .filter((e) => !e.closest('.table-scroll'))
          .map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
        return { by: document.documentElement.scrollWidth - width, wider };
      });
      assert.ok(
        overflow.by <= 0,
        `the page scrolls sideways by ${overflow.by} px: ${overflow.wider.join(', ')}`,
      );
      await page.context().close();
    });
  }

  it('works with JavaScript off: signs in, switches, shows every page, sends a form', async () => {
    const page = await signIn('en', DESKTOP, false);
    for (const url of [
      '/console',
      '/console/customers',
      `/console/customers/${customer.id}`,
      '/console/settings/users',
    ]) {
      const response = await page.goto(`${origin}${url}`);
      assert.equal(response?.status(), 200, url);
      assert.equal(await page.locator('h1').count(), 1, url);
    }
    await page.goto(`${origin}/console/customers`);
    await page.fill('#new-name', 'Katherine Johnson');
    await page.click('form.stacked button[type=submit]');
    assert.match(new URL(page.url()).pathname, /^\/console\/customers\/cus_/);
    assert.equal((await page.getByText('Katherine Johnson').count()) > 0, true);
    await page.context().close();
  });

  it('names the person in the event of what they did, refuses a forged form, signs out', async () => {
    const user = await consoleUser(server, 'finance', { tenantId: key.tenantId });
    const page = await signIn('en', DESKTOP, true, user);
    await page.goto(`${origin}/console/customers`);
    await page.fill('#new-name', 'Mary Jackson');
    await page.click('form.stacked button[type=submit]');
    const id = new URL(page.url()).pathname.split('/').pop();
    const { rows } = await server.db.query<{ actor: unknown }>(
      `SELECT actor FROM events WHERE tenant_id = $1 AND object_id = $2 AND type = 'customer.created'`,
      [key.tenantId, id],
    );
    assert.deepEqual(rows, [{ actor: { type: 'user', id: user.id, email: user.email } }]);

    // A form whose CSRF token is not the one the page was given: refused, nothing made.
    await page.goto(`${origin}/console/customers`);
    await page.fill('#new-name', 'Forged Customer');
    await page
      .locator('form.stacked input[name=_csrf]')
      .evaluate((input) => input.setAttribute('value', 'forged'));
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('form.stacked button[type=submit]'),
    ]);
    assert.equal(refused.status(), 403);
    const forged = await server.db.query(
      `SELECT 1 FROM customers WHERE tenant_id = $1 AND name = 'Forged Customer'`,
      [key.tenantId],
    );
    assert.equal(forged.rowCount, 0);

    // Signed out, the pages send the browser to sign in again.
    await page.goto(`${origin}/console`);
    await page.click('form.sign-out button[type=submit]');
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');
    await page.goto(`${origin}/console/customers`);
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');
    await page.context().close();
  });

  it('shows the sign-in page accessibly', async () => {
    const context = await chromium().newContext({ viewport: MOBILE });
    const page = await context.newPage();
    await checked(page, '/console/sign-in', 'sign-in-mobile');
    await context.close();
  });
});
