// `npm run test:browser`: the subscription and webhook pages of the console in Debian's Chromium
// with JavaScript off, as each role; axe-core's WCAG 2.2 AA rules (no serious or critical
// violation); one action of each page done through its form; screenshots in English at desktop
// width and German at mobile width (VIEWS) into ./data/screenshots/console/ (git-ignored).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { Role } from '../../src/console/roles.ts';
import { createCustomer, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { createPrice } from '../subscriptions/fixtures.ts';
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

// No worker: the failed delivery stays as it is set below.
const server = await startInvoiceApp({ webhooksAllowLoopback: true, runWorker: false });
const { api, key } = await tenantApi(server);
const endpoint = await api.post('/v1/webhook-endpoints', {
  url: 'http://127.0.0.1:9/a/rather/long/path/of/the/receiver/webhooks',
  enabledEvents: ['*'],
});
assert.equal(endpoint.status, 201, endpoint.text);
const customer = await createCustomer(api, { name: 'Ada Lovelace' });
const basic = await createPrice(api, { unitAmount: 3000, name: 'Basic' });
await createPrice(api, { unitAmount: 5000, name: 'Professional plan with a long name' });
const created = await api.post('/v1/subscriptions', {
  customerId: customer.id,
  items: [{ priceId: basic.id, quantity: 2 }],
});
assert.equal(created.status, 201, created.text);
const subscription = created.body as { id: string };
const { rows } = await server.db.query<{ id: string }>(
  `UPDATE webhook_deliveries SET status = 'failed', attempt_count = 10
    WHERE tenant_id = $1 AND event_type = 'customer.created' RETURNING id`,
  [key.tenantId],
);
const delivery = rows[0]!.id;
await server.db.query(
  `INSERT INTO webhook_attempts (tenant_id, environment, delivery_id, attempt, attempted_at,
                                 duration_ms, response_status, error, response_body)
   VALUES ($1, 'test', $2, 10, now(), 120, 503, 'HTTP 503', '<html>Service unavailable</html>')`,
  [key.tenantId, delivery],
);
const origin = server.url.replace('127.0.0.1', 'localhost');

const chromium = chromiumForChecks();

async function signIn(
  role: Role,
  locale: string,
  viewport: { width: number; height: number },
): Promise<Page> {
  const user = await consoleUser(server, role, { tenantId: key.tenantId, locale });
  return signInThroughForm(chromium(), origin, key.tenantId, user.email, {
    viewport,
    javaScriptEnabled: false,
  });
}

/**
 * Visits `url` with JavaScript off (screenshot, no sideways scrolling), then holds it to
 * axe-core in a second browser of the same session with JavaScript on: axe is a script, and
 * Chromium runs no page timers with scripts disabled, so axe would never finish there.
 */
async function checked(page: Page, url: string, name: string | null): Promise<void> {
  const response = await page.goto(`${origin}${url}`);
  assert.equal(response?.status(), 200, url);
  if (name) await screenshot(page, path.join(SCREENSHOTS, `${name}.png`));
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  assert.ok(overflow <= 0, `${url} scrolls sideways by ${overflow} px`);
  const scripted = await chromium().newContext({
    viewport: page.viewportSize()!,
    storageState: await page.context().storageState(),
    bypassCSP: true,
  });
  try {
    const audited = await scripted.newPage();
    assert.equal((await audited.goto(`${origin}${url}`))?.status(), 200, url);
    await assertAccessible(audited, url);
  } finally {
    await scripted.close();
  }
}

const PAGES = [
  ['/console/subscriptions', 'subscriptions'],
  [`/console/subscriptions/${subscription.id}`, 'subscription'],
  ['/console/webhooks', 'webhooks'],
  [`/console/webhooks/deliveries/${delivery}`, 'webhook-delivery'],
] as const;

describe('subscription and webhook pages in Chromium', () => {
  for (const role of ['viewer', 'finance'] as const) {
    it(`shows every page to ${role}, accessibly`, async () => {
      const page = await signIn(role, 'en', DESKTOP);
      for (const [url] of PAGES) await checked(page, url, null);
      await page.context().close();
    });
  }

  for (const { locale, width, viewport } of VIEWS) {
    it(`shows every page to admin in ${locale} at ${viewport.width} px`, async () => {
      const page = await signIn('admin', locale, viewport);
      for (const [url, name] of PAGES) await checked(page, url, `${name}-${locale}-${width}`);
      await page.context().close();
    });
  }

  it('changes a quantity and retries a delivery through the forms, JavaScript off', async () => {
    const page = await signIn('finance', 'en', MOBILE);
    await page.goto(`${origin}/console/subscriptions/${subscription.id}`);
    await page.fill('#change-quantity', '5');
    await page.click('form[action$="/change"] button[type=submit]');
    assert.equal(new URL(page.url()).pathname, `/console/subscriptions/${subscription.id}`);
    assert.equal((await page.locator('#items ~ div td.num').first().textContent())?.trim(), '5');
    await page.goto(`${origin}/console/webhooks/deliveries/${delivery}`);
    await page.click('form[action$="/retry"] button[type=submit]');
    assert.equal(new URL(page.url()).pathname, `/console/webhooks/deliveries/${delivery}`);
    assert.match((await page.locator('dl.facts').textContent()) ?? '', /Pending/);
    await page.context().close();
  });
});
