// `npm run test:browser`: the reports, settings and API keys pages in Debian's Chromium, each
// signed in as each role that may see it, held to axe-core's WCAG 2.2 AA rules (no serious or
// critical violation; axe is a script in the page, so those visits have JavaScript on — the console
// has none of its own), in English at desktop width and German at mobile width (VIEWS), printed (no
// navigation), and a key made through the form with JavaScript off. Screenshots go to
// ./data/screenshots/console/ (git-ignored).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { Role } from '../../src/console/roles.ts';
import { createTenantWithKey, client } from '../helpers.ts';
import { completeSeller, issuedInvoice } from '../hosted/fixtures.ts';
import { startInvoiceApp } from '../invoices/fixtures.ts';
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

/** Each visit's time limit: a page that hangs fails with its step rather than the whole run. */
const LIMIT = { timeout: 180_000 };

const server = await startInvoiceApp();
const key = await createTenantWithKey(server.db, { environment: 'live' });
await completeSeller(server.db, key.tenantId);
const api = client(server.url, key.secret);
const first = await issuedInvoice(api, { dueDate: '2020-01-15' });
await issuedInvoice(api, { customerId: first.customerId as string });
await issuedInvoice(api, { lines: 1 });
const origin = server.url.replace('127.0.0.1', 'localhost');

const chromium = chromiumForChecks();

async function signIn(
  role: Role,
  locale: string,
  viewport: typeof DESKTOP,
  javaScriptEnabled = true,
): Promise<Page> {
  const user = await consoleUser(server, role, { tenantId: key.tenantId, locale });
  return signInThroughForm(chromium(), origin, key.tenantId, user.email, {
    viewport,
    javaScriptEnabled,
    environment: 'live',
  });
}

async function checked(page: Page, url: string, name: string, status = 200): Promise<void> {
  const response = await page.goto(`${origin}${url}`);
  assert.equal(response?.status(), status, url);
  await assertAccessible(page, url);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  // (A page's hidden texts in a .table-scroll region are clipped with it: see console.css.)
  assert.ok(overflow <= 0, `${url} scrolls sideways by ${overflow} px`);
  await screenshot(page, path.join(SCREENSHOTS, `${name}.png`));
}

describe('reports, settings and API keys in Chromium', () => {
  for (const { locale, width, viewport } of VIEWS) {
    it(
      `shows them to an admin in ${locale} at ${viewport.width} px, accessibly`,
      LIMIT,
      async () => {
        const page = await signIn('admin', locale, viewport);
        await checked(page, '/console/reports', `reports-${locale}-${width}`);
        assert.equal(await page.locator('section.report table').count(), 3);
        await checked(page, '/console/settings', `settings-${locale}-${width}`);
        await checked(page, '/console/settings/api-keys', `api-keys-${locale}-${width}`);
        await page.context().close();
      },
    );
  }

  it('shows reports to finance and viewer, and refuses them settings and keys', LIMIT, async () => {
    for (const role of ['finance', 'viewer'] as const) {
      const page = await signIn(role, 'en', DESKTOP);
      await checked(page, '/console/reports?period=q4&year=2026', `reports-${role}`);
      await checked(page, '/console/settings', `settings-${role}`, 403);
      await checked(page, '/console/settings/api-keys', `api-keys-${role}`, 403);
      await page.context().close();
    }
  });

  it('prints a report without navigation or forms, its tables whole', LIMIT, async () => {
    const page = await signIn('viewer', 'en', DESKTOP);
    await page.goto(`${origin}/console/reports`);
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('nav.main-nav').isVisible(), false);
    assert.equal(await page.locator('form.period').isVisible(), false);
    assert.equal(await page.locator('.download').first().isVisible(), false);
    assert.equal(await page.locator('table').first().isVisible(), true);
    const breaking = await page.evaluate(
      () => getComputedStyle(document.querySelector('table.list tr')!).breakInside,
    );
    assert.equal(breaking, 'avoid');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'reports-print.png'), fullPage: true });
    await page.pdf({ path: path.join(SCREENSHOTS, 'reports-print.pdf') });
    await page.context().close();
  });

  it('makes a key through the form with JavaScript off, its secret shown once', LIMIT, async () => {
    const page = await signIn('admin', 'en', MOBILE, false);
    await page.goto(`${origin}/console/settings/api-keys`);
    await page.fill('#key-name', 'Browser key');
    await page.check('input[value="invoices:read"]');
    await page.click('form.stacked button[type=submit]');
    const secret = await page.locator('.link-box code').textContent();
    assert.match(secret ?? '', /^sk_live_/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'api-key-issued.png'), fullPage: true });
    await page.click('main a[href="/console/settings/api-keys"]');
    assert.equal(new URL(page.url()).pathname, '/console/settings/api-keys');
    assert.equal(await page.getByText(secret!).count(), 0, 'the secret is not shown again');
    assert.equal(await page.getByText('Browser key').count(), 1);
    await page.context().close();
  });
});
