// What every console check in Chromium shares (`npm run test:browser`): one browser per check
// file, signing in through the form, axe-core's verdict on a page, and where screenshots go.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PASSWORD } from './browser.ts';

/** Screenshots of the checks (git-ignored), to be looked at. */
export const SCREENSHOTS = path.resolve('data/screenshots/console');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const DESKTOP = { width: 1280, height: 900 };
export const MOBILE = { width: 375, height: 812 };

/**
 * The language and width every page is checked and photographed in, each language once and each
 * width once: English on a desktop, German on a phone. German's longer words at 375 px are where
 * a page would overflow or a control would wrap; the layout does not otherwise depend on the
 * language, nor the translations on the width. Every page in both languages at both widths
 * took twice the browser checks' time (about 170 s more of CI) for no case these two miss.
 */
export const VIEWS = [
  { locale: 'en', width: 'desktop', viewport: DESKTOP },
  { locale: 'de', width: 'mobile', viewport: MOBILE },
] as const;

/** Debian's Chromium, started before the file's tests and closed after them. */
export function chromiumForChecks(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  after(() => browser?.close());
  return () => browser!;
}

/**
 * A new browser context signed in through the form as the user with `email` (the password
 * PASSWORD), in the environment where the check's data are.
 */
export async function signInThroughForm(
  browser: Browser,
  origin: string,
  tenantId: string,
  email: string,
  options: {
    viewport: { width: number; height: number };
    javaScriptEnabled?: boolean;
    /** Where the checks' data are: the session switches there from live (default test). */
    environment?: 'live' | 'test';
  },
): Promise<Page> {
  const context = await browser.newContext({
    viewport: options.viewport,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  const page = await context.newPage();
  await page.goto(`${origin}/console/sign-in`);
  await page.fill('#tenant', tenantId);
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('button[type=submit]');
  assert.equal(new URL(page.url()).pathname, '/console');
  if ((options.environment ?? 'test') === 'test') {
    await page.click('.environment button');
    assert.equal(await page.locator('.env-badge-test').count(), 1);
  }
  return page;
}

/**
 * axe-core's WCAG 2.2 AA rules on the page as it stands (`url` names it): no serious or
 * critical violation; minor ones are printed. axe is a script: the page's context must have
 * JavaScript on (with it off, axe never returns).
 */
export async function assertAccessible(page: Page, url: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  const grave = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const minor = results.violations.filter((v) => !grave.includes(v));
  if (minor.length > 0)
    console.log(
      `${url}: minor`,
      minor.map((v) => v.id),
    );
  assert.deepEqual(
    grave.map((v) => `${url} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
  );
  assert.ok(results.passes.length > 15, 'axe ran its rules');
}
