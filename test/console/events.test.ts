import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCustomer, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { signedIn } from './browser.ts';

const server = await startInvoiceApp();

/** Rows of the events table on the page: [type, object, actor]. */
function rowsOf(html: string): string[][] {
  return [
    ...html.matchAll(
      /<tr><td><a href="\/console\/events\/(evt_[^"]+)">([^<]+)<\/a>[^]*?<td>([^<]*)<\/td><\/tr>/g,
    ),
  ].map((m) => [m[1]!, m[2]!, m[3]!]);
}

describe('events pages', () => {
  it('lists the environment’s events newest first with their actor, by type, 25 a page', async () => {
    const { browser, user } = await signedIn(server, 'viewer');
    const { api, key } = await tenantApi(server, { tenantId: user.tenantId, environment: 'live' });
    for (let i = 0; i < 26; i++) await createCustomer(api, { name: `Customer ${i}` });
    const { browser: finance, user: person } = await signedIn(server, 'finance', {
      tenantId: user.tenantId,
    });
    const page = await finance.get('/console/customers');
    const idempotencyKey = /name="idempotencyKey" value="([^"]+)"/.exec(page.text)![1]!;
    const made = await finance.submit('/console/customers', '/console/customers', {
      idempotencyKey,
      name: 'By a person',
      email: '',
    });
    assert.equal(made.status, 303);

    const list = await browser.get('/console/events');
    assert.equal(list.status, 200);
    const rows = rowsOf(list.text);
    assert.equal(rows.length, 25);
    assert.deepEqual(rows[0]!.slice(1), ['customer.created', person.email]);
    assert.deepEqual(rows[1]!.slice(1), ['customer.created', `API key ${key.keyId}`]);
    assert.ok(list.text.includes(`href="${made.location}"`), 'the object links to its page');
    const next = /href="([^"]+)" rel="next"/.exec(list.text)![1]!.replaceAll('&amp;', '&');
    const second = rowsOf((await browser.get(next)).text);
    assert.equal(second.length, 2);
    assert.ok(!second.some((r) => rows.some((s) => s[0] === r[0])));

    const typed = rowsOf((await browser.get('/console/events?type=customer.updated')).text);
    assert.equal(typed.length, 0);
    assert.equal((await browser.get('/console/events?type=nope.never')).status, 400);
  });

  it('shows an event’s JSON escaped, and another tenant’s event as 404', async () => {
    const { browser, user } = await signedIn(server, 'admin');
    const { api } = await tenantApi(server, { tenantId: user.tenantId, environment: 'live' });
    await createCustomer(api, { name: '<script>alert(1)</script>' });
    const [row] = rowsOf((await browser.get('/console/events')).text);
    const page = await browser.get(`/console/events/${row![0]}`);
    assert.equal(page.status, 200);
    assert.ok(
      page.text.includes('&quot;name&quot;: &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;'),
    );
    assert.ok(!page.text.includes('<script>'));
    const { browser: other } = await signedIn(server, 'admin');
    assert.equal((await other.get(`/console/events/${row![0]}`)).status, 404);
    assert.equal((await other.get('/console/events/evt_missing')).status, 404);
  });

  it('sends a visitor without a session to sign in', async () => {
    const answer = await fetch(`${server.url}/console/events`, { redirect: 'manual' });
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.get('location'), '/console/sign-in');
  });
});
