// The console's reports page (docs/console.md, "Reports"): the receivables and VAT reports of
// the reports service for each role that may read them, a month or a quarter chosen by the
// form, and the very CSV the API's report endpoints give.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, createTenantWithKey, client } from '../helpers.ts';
import { completeSeller, issuedInvoice } from '../hosted/fixtures.ts';
import { startInvoiceApp } from '../invoices/fixtures.ts';
import { daysFromToday } from '../payments/fixtures.ts';
import { ConsoleBrowser, signedIn } from './browser.ts';

const server = await startInvoiceApp();

/** A finance user's tenant with two issued invoices in live: one overdue by 40 days. */
async function tenantWithInvoices() {
  const { browser, user } = await signedIn(server, 'finance');
  const key = await createTenantWithKey(server.db, {
    tenantId: user.tenantId,
    environment: 'live',
  });
  await completeSeller(server.db, user.tenantId);
  const api = client(server.url, key.secret);
  const late = await issuedInvoice(api, { lines: 1, dueDate: daysFromToday(-40) });
  const current = await issuedInvoice(api, { lines: 2 });
  return { browser, user, key, late, current, api };
}

/** The bytes of a CSV answer (fetch's text() would drop the byte order mark). */
async function bytes(answer: Response): Promise<Buffer> {
  assert.equal(answer.status, 200);
  return Buffer.from(await answer.arrayBuffer());
}

async function consoleCsv(browser: ConsoleBrowser, path: string): Promise<Response> {
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return fetch(`${server.url}${path}`, { headers: { cookie } });
}

describe('reports', () => {
  it('shows receivables by age and the VAT of the month, as the reports service gives them', async () => {
    const { browser, late, key, api } = await tenantWithInvoices();
    // Uncollectible invoices are still owed: the report and the page count them.
    const written = await api.post(`/v1/invoices/${late.id}/mark-uncollectible`);
    assert.equal(written.status, 200, written.text);
    const page = await browser.get('/console/reports');
    assert.equal(page.status, 200);
    assert.match(page.text, /<h1>Reports<\/h1>/);
    const report = (await call(server.url, 'GET', '/v1/reports/receivables', { key: key.secret }))
      .body;
    const eur = report.totals.find((t: { currency: string }) => t.currency === 'eur');
    assert.equal(eur.buckets['31_60'], late.total);
    // The row of EUR: invoices, the five buckets, the total, as the page formats them.
    const money = (minor: number) =>
      new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR' }).format(minor / 100);
    const row = /<th scope="row">EUR<\/th>(.*?)<\/tr>/s.exec(page.text)![1]!;
    const cells = [...row.matchAll(/<td class="num">(?:<strong>)?([^<]*)/g)].map((m) => m[1]);
    assert.deepEqual(cells, [
      '2',
      money(eur.buckets.current),
      money(0),
      money(eur.buckets['31_60']),
      money(0),
      money(0),
      money(eur.total),
    ]);
    // The VAT of this month: 19 % on both invoices (each made its own rate).
    const tax = await call(
      server.url,
      'GET',
      `/v1/reports/tax?from=${daysFromToday(0).slice(0, 8)}01&to=${daysFromToday(0)}`,
      { key: key.secret },
    );
    assert.equal(tax.body.data.length, 2);
    for (const rate of tax.body.data) {
      assert.ok(page.text.includes(money(rate.tax)), 'the tax of each rate is shown');
    }
    assert.ok(page.text.includes(money(tax.body.totals[0].total)), 'the gross total is shown');
    assert.match(page.text, /19 %/);
  });

  it('chooses a quarter by the form, and refuses a period that is none', async () => {
    const { browser } = await signedIn(server, 'viewer');
    const page = await browser.get('/console/reports?period=q2&year=2025');
    assert.equal(page.status, 200);
    assert.match(page.text, /from 1 Apr 2025 to 30 Jun 2025/);
    assert.match(page.text, /<option value="q2" selected>Quarter 2<\/option>/);
    assert.match(page.text, /No invoices or credit notes were issued in this period/);
    assert.equal((await browser.get('/console/reports?period=q5&year=2025')).status, 400);
    assert.equal((await browser.get('/console/reports?period=m02&year=1999')).status, 400);
  });

  it('downloads the same CSV as the API’s report endpoints', async () => {
    const { browser, key } = await tenantWithInvoices();
    const month = daysFromToday(0).slice(0, 7);
    const [year, m] = month.split('-');
    const last = new Date(Date.UTC(Number(year), Number(m), 0)).toISOString().slice(0, 10);
    const auth = { authorization: `Bearer ${key.secret}` };
    const pairs: [string, string][] = [
      ['/console/reports/receivables.csv', '/v1/reports/receivables?format=csv'],
      [
        `/console/reports/tax.csv?year=${year}&period=m${m}`,
        `/v1/reports/tax?from=${month}-01&to=${last}&format=csv`,
      ],
    ];
    for (const [mine, theirs] of pairs) {
      const answer = await consoleCsv(browser, mine);
      const viaApi = await fetch(`${server.url}${theirs}`, { headers: auth });
      assert.equal(answer.headers.get('content-type'), viaApi.headers.get('content-type'));
      assert.equal(
        answer.headers.get('content-disposition'),
        viaApi.headers.get('content-disposition'),
      );
      const csv = await bytes(answer);
      assert.ok(csv.equals(await bytes(viaApi)), `${mine} is the API's CSV`);
      assert.ok(csv.toString('utf8').split('\r\n').length >= 3, 'a header and lines');
    }
  });

  it('is read by admin, finance and viewer; nobody signed out; another tenant sees its own', async () => {
    const { browser: finance } = await tenantWithInvoices();
    assert.match((await finance.get('/console/reports')).text, /31–60 days/);
    for (const role of ['admin', 'viewer'] as const) {
      const { browser } = await signedIn(server, role);
      const page = await browser.get('/console/reports');
      assert.equal(page.status, 200, role);
      // Another tenant's invoices are not in its report.
      assert.match(page.text, /Nothing is owed/);
      assert.match(page.text, /href="\/console\/reports"[^>]*aria-current="page"/);
    }
    const stranger = new ConsoleBrowser(server.url);
    assert.equal((await stranger.get('/console/reports')).location, '/console/sign-in');
    assert.equal((await stranger.get('/console/reports/receivables.csv')).status, 303);
  });
});
