// The console's settings and API keys pages (docs/console.md, "Settings", "API keys"): admins
// only; changes through the settings and keys services, the person as the actor, a form sent
// twice done once; a key's secret shown once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, createTenantWithKey, startTestApp } from '../helpers.ts';
import { ConsoleBrowser, signedIn } from './browser.ts';

const server = await startTestApp();

/** The fields of the first form posting to `action` on the page, as a browser would send them. */
function formOf(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  assert.ok(start >= 0, `a form to ${action}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
    if (!/type="checkbox"/.test(m[0])) fields[m[1]!] = m[2]!.replace(/&#39;/g, "'");
  }
  for (const m of form.matchAll(/<textarea[^>]*name="([^"]+)"[^>]*>([^<]*)</g)) {
    fields[m[1]!] = m[2]!;
  }
  for (const m of form.matchAll(/<select[^>]*name="([^"]+)"[^>]*>(.*?)<\/select>/gs)) {
    fields[m[1]!] = /<option value="([^"]*)" selected/.exec(m[2]!)?.[1] ?? '';
  }
  return fields;
}

/** The tenant's events of `type` in live, newest first, as the API lists them. */
async function events(tenantId: string, type: string) {
  const key = await createTenantWithKey(server.db, { tenantId, environment: 'live' });
  const answer = await call(server.url, 'GET', `/v1/events?type=${type}`, { key: key.secret });
  assert.equal(answer.status, 200);
  return { list: answer.body.data, key };
}

describe('settings', () => {
  it('lets an admin change them through the settings service, once per form', async () => {
    const { browser, user } = await signedIn(server, 'admin');
    const page = await browser.get('/console/settings');
    assert.equal(page.status, 200);
    assert.match(page.text, /href="\/console\/settings\/users"/);
    const form = {
      ...formOf(page.text, '/console/settings'),
      legalName: 'Nordwind Analytik GmbH',
      taxId: 'DE123456789',
      line1: 'Hafenstraße 12',
      postalCode: '20457',
      city: 'Hamburg',
      country: 'de',
      iban: 'DE89 3704 0044 0532 0130 00',
      reminders: '14, 7',
      invoicePrefix: 'NW-',
    };
    const first = await browser.request('POST', '/console/settings', form);
    assert.equal(first.status, 303, first.text);
    assert.equal(first.location, '/console/settings?saved=1');
    const again = await browser.request('POST', '/console/settings', form);
    assert.equal(again.location, first.location);
    const { list, key } = await events(user.tenantId, 'settings.updated');
    assert.equal(list.length, 1, 'the form sent twice changed the settings once');
    assert.deepEqual(list[0].actor, { type: 'user', id: user.id, email: user.email });
    const settings = (await call(server.url, 'GET', '/v1/settings', { key: key.secret })).body;
    assert.equal(settings.legalName, 'Nordwind Analytik GmbH');
    assert.equal(settings.address.country, 'DE');
    assert.equal(settings.paymentDetails.iban, 'DE89370400440532013000');
    assert.deepEqual(settings.reminders, [7, 14]);
    assert.equal(settings.invoicePrefix, 'NW-');
    assert.equal(settings.email, null, 'an empty field clears the setting');
    const shown = await browser.get(first.location!);
    assert.match(shown.text, /role="status">The settings are saved/);
    assert.match(shown.text, /name="legalName" type="text" value="Nordwind Analytik GmbH"/);
    // The test environment's settings did not change.
    await browser.submit('/console', '/console/environment', { environment: 'test', back: '/' });
    assert.doesNotMatch((await browser.get('/console/settings')).text, /Nordwind/);
  });

  it('refuses what the API refuses, with its reason, changing nothing', async () => {
    const { browser, user } = await signedIn(server, 'admin');
    const page = await browser.get('/console/settings');
    const base = formOf(page.text, '/console/settings');
    for (const [field, value, reason] of [
      ['iban', 'DE00 1234', /IBAN is not valid/],
      ['email', 'not an address', /email/],
      ['invoicePrefix', 'no spaces', /invoicePrefix/],
      ['timeZone', 'Mars/Olympus', /not an IANA time zone/],
      ['reminders', '0, 400', /reminders/i],
    ] as const) {
      const answer = await browser.request('POST', '/console/settings', {
        ...base,
        idempotencyKey: crypto.randomUUID(),
        [field]: value,
      });
      assert.ok(answer.status >= 400 && answer.status < 500, `${field}: ${answer.status}`);
      assert.match(answer.text, reason);
    }
    assert.equal((await events(user.tenantId, 'settings.updated')).list.length, 0);
  });

  it('is for admins: finance and viewer get 403, and their forged form changes nothing', async () => {
    const { browser: admin, user } = await signedIn(server, 'admin');
    const form = formOf((await admin.get('/console/settings')).text, '/console/settings');
    for (const role of ['finance', 'viewer'] as const) {
      const { browser } = await signedIn(server, role, { tenantId: user.tenantId });
      assert.equal((await browser.get('/console/settings')).status, 403);
      assert.doesNotMatch((await browser.get('/console')).text, /href="\/console\/settings"/);
      const forged = await browser.submit('/console', '/console/settings', {
        ...form,
        legalName: 'Forged',
      });
      assert.equal(forged.status, 403);
    }
    assert.equal((await events(user.tenantId, 'settings.updated')).list.length, 0);
  });

  it('refuses a form without its CSRF token', async () => {
    const { browser, user } = await signedIn(server, 'admin');
    const { _csrf, ...form } = formOf(
      (await browser.get('/console/settings')).text,
      '/console/settings',
    );
    assert.ok(_csrf);
    const answer = await browser.request('POST', '/console/settings', { ...form, legalName: 'X' });
    assert.equal(answer.status, 403);
    assert.match(answer.text, /The form has expired/);
    assert.equal((await events(user.tenantId, 'settings.updated')).list.length, 0);
  });
});

const KEYS = '/console/settings/api-keys';

/** Creates a key through the page's form; the answer. */
async function createKey(browser: ConsoleBrowser, name: string, scopes: string[]) {
  const page = await browser.get(KEYS);
  const form = formOf(page.text, KEYS);
  const body = new URLSearchParams({ ...form, name });
  for (const scope of scopes) body.append('scopes', scope);
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const send = () =>
    fetch(`${server.url}${KEYS}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
  return { send, first: await send() };
}

const secretOf = (html: string) => /<code>(sk_(?:live|test)_[^<]+)<\/code>/.exec(html)?.[1];

describe('API keys', () => {
  it('creates a key whose secret is shown once, its event naming the person', async () => {
    const { browser, user } = await signedIn(server, 'admin');
    assert.match((await browser.get(KEYS)).text, /No keys in this environment/);
    const { send, first } = await createKey(browser, 'Accounting export', [
      'invoices:read',
      'customers:read',
    ]);
    assert.equal(first.status, 201);
    const secret = secretOf(await first.text());
    assert.ok(secret, 'the secret is on the answer');
    const whoami = await call(server.url, 'GET', '/v1/auth/whoami', { key: secret });
    assert.deepEqual(whoami.body.scopes, ['customers:read', 'invoices:read']);
    assert.equal(whoami.body.environment, 'live');
    // The same form again (a reload): the list, without the secret.
    const replay = await send();
    assert.equal(replay.status, 303);
    assert.equal(replay.headers.get('location'), KEYS);
    const list = await browser.get(KEYS);
    assert.ok(!list.text.includes(secret), 'the list never shows a secret');
    assert.match(list.text, /Accounting export/);
    assert.match(list.text, /customers:read, invoices:read/);
    const { list: created } = await events(user.tenantId, 'api_key.created');
    const mine = created.filter((e: any) => e.data.object.name === 'Accounting export');
    assert.equal(mine.length, 1);
    assert.deepEqual(mine[0].actor, { type: 'user', id: user.id, email: user.email });
    assert.ok(!JSON.stringify(mine[0]).includes(secret), 'the event has no secret');
  });

  it('refuses a key without scopes', async () => {
    const { browser } = await signedIn(server, 'admin');
    const { first } = await createKey(browser, 'Nothing', []);
    assert.equal(first.status, 400);
    assert.match(await first.text(), /at least one scope/);
  });

  it('rolls and revokes a key through the keys service', async () => {
    const { browser, user } = await signedIn(server, 'admin');
    const { first } = await createKey(browser, 'Old', ['invoices:read']);
    const oldSecret = secretOf(await first.text())!;
    const list = await browser.get(KEYS);
    const id = /action="\/console\/settings\/api-keys\/(key_[^/]+)\/rotate"/.exec(list.text)![1]!;
    const rotateForm = formOf(list.text, `${KEYS}/${id}/rotate`);
    const rolled = await browser.request('POST', `${KEYS}/${id}/rotate`, {
      ...rotateForm,
      expireOld: '3600',
    });
    assert.equal(rolled.status, 201, rolled.text);
    const newSecret = secretOf(rolled.text)!;
    assert.notEqual(newSecret, oldSecret);
    const whoami = await call(server.url, 'GET', '/v1/auth/whoami', { key: newSecret });
    assert.deepEqual(whoami.body.scopes, ['invoices:read']);
    assert.match((await browser.get(KEYS)).text, /Works until/);
    const revokeForm = formOf((await browser.get(KEYS)).text, `${KEYS}/${id}/revoke`);
    const revoked = await browser.request('POST', `${KEYS}/${id}/revoke`, revokeForm);
    assert.equal(revoked.status, 303);
    assert.equal(revoked.location, KEYS);
    assert.match((await browser.get(KEYS)).text, /Revoked on/);
    const { rows } = await server.db.query('SELECT revoked_at FROM api_keys WHERE id = $1', [id]);
    assert.ok(rows[0].revoked_at);
    for (const type of ['api_key.rotated', 'api_key.revoked']) {
      const { list: found } = await events(user.tenantId, type);
      const event = found.find((e: any) => e.actor?.type === 'user');
      assert.deepEqual(event?.actor, { type: 'user', id: user.id, email: user.email }, type);
    }
  });

  it('answers 404 for another tenant’s key, and 403 to finance and viewer', async () => {
    const { browser: theirs } = await signedIn(server, 'admin');
    await createKey(theirs, 'Theirs', ['invoices:read']);
    const id = /api-keys\/(key_[^/]+)\/revoke/.exec((await theirs.get(KEYS)).text)![1]!;
    const { browser: mine, user } = await signedIn(server, 'admin');
    const form = formOf((await mine.get(KEYS)).text, KEYS);
    const answer = await mine.request('POST', `${KEYS}/${id}/revoke`, form);
    assert.equal(answer.status, 404);
    const { rows } = await server.db.query('SELECT revoked_at FROM api_keys WHERE id = $1', [id]);
    assert.equal(rows[0].revoked_at, null);
    for (const role of ['finance', 'viewer'] as const) {
      const { browser } = await signedIn(server, role, { tenantId: user.tenantId });
      assert.equal((await browser.get(KEYS)).status, 403);
      const forged = await browser.submit('/console', KEYS, {
        idempotencyKey: crypto.randomUUID(),
        name: 'Forged',
        scopes: 'invoices:read',
      });
      assert.equal(forged.status, 403);
    }
    const { rows: made } = await server.db.query(
      "SELECT 1 FROM api_keys WHERE tenant_id = $1 AND name = 'Forged'",
      [user.tenantId],
    );
    assert.equal(made.length, 0);
  });
});
