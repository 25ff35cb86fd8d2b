import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, createTenantWithKey, startTestApp } from '../helpers.ts';
import { consoleUser, ConsoleBrowser, PASSWORD, signedIn } from './browser.ts';

const server = await startTestApp();

/** Creates a customer through the console's form, as its page offers it. */
async function createCustomer(browser: ConsoleBrowser, name: string) {
  const page = await browser.get('/console/customers');
  const key = /name="idempotencyKey" value="([^"]+)"/.exec(page.text)?.[1] ?? 'forged-key';
  return browser.submit('/console/customers', '/console/customers', {
    idempotencyKey: key,
    name,
    email: '',
  });
}

describe('roles', () => {
  it("refuses a viewer's forged POST with 403 and changes nothing", async () => {
    const { browser, user } = await signedIn(server, 'viewer');
    const answer = await createCustomer(browser, 'Forged Ltd');
    assert.equal(answer.status, 403);
    const { rows } = await server.db.query('SELECT 1 FROM customers WHERE tenant_id = $1', [
      user.tenantId,
    ]);
    assert.equal(rows.length, 0);
    // Nor does a viewer or finance reach the users page.
    assert.equal((await browser.get('/console/settings/users')).status, 403);
    const { browser: finance } = await signedIn(server, 'finance');
    assert.equal((await finance.get('/console/settings/users')).status, 403);
  });

  it('answers 404 for another tenant’s customer id', async () => {
    const { browser: mine } = await signedIn(server, 'admin');
    const { browser: theirs } = await signedIn(server, 'admin');
    const made = await createCustomer(theirs, 'Theirs GmbH');
    assert.equal(made.status, 303);
    const path = made.location!;
    assert.equal((await theirs.get(path)).status, 200);
    assert.equal((await mine.get(path)).status, 404);
  });

  it('shows one environment at a time, switched in the session', async () => {
    const { browser } = await signedIn(server, 'finance');
    const made = await createCustomer(browser, 'Live Co');
    assert.equal((await browser.get(made.location!)).status, 200);
    const switched = await browser.submit('/console', '/console/environment', {
      environment: 'test',
      back: '/console/customers',
    });
    assert.equal(switched.location, '/console/customers');
    assert.equal((await browser.get(made.location!)).status, 404);
    assert.match((await browser.get('/console')).text, /env-badge-test/);
  });
});

describe('actions', () => {
  it('creates through the customers service, its event naming the person (actor)', async () => {
    const { browser, user } = await signedIn(server, 'finance');
    const made = await createCustomer(browser, 'Acme SA');
    assert.equal(made.status, 303);
    const id = made.location!.split('/').pop()!;
    const key = await createTenantWithKey(server.db, {
      tenantId: user.tenantId,
      environment: 'live',
    });
    const events = await call(server.url, 'GET', '/v1/events?type=customer.created', {
      key: key.secret,
    });
    assert.equal(events.status, 200);
    const event = events.body.data.find(
      (e: { data: { object: { id: string } } }) => e.data.object.id === id,
    );
    assert.deepEqual(event.actor, { type: 'user', id: user.id, email: user.email });
    // The same service through the API names the key.
    const viaApi = await call(server.url, 'POST', '/v1/customers', {
      key: key.secret,
      body: { name: 'By key' },
    });
    const byKey = await call(server.url, 'GET', '/v1/events?type=customer.created', {
      key: key.secret,
    });
    const keyEvent = byKey.body.data.find(
      (e: { data: { object: { id: string } } }) => e.data.object.id === viaApi.body.id,
    );
    assert.deepEqual(keyEvent.actor, { type: 'api_key', id: key.keyId });
  });

  it('does a form sent twice once (its idempotency key)', async () => {
    const { browser, user } = await signedIn(server, 'admin');
    const page = await browser.get('/console/customers');
    const key = /name="idempotencyKey" value="([^"]+)"/.exec(page.text)![1]!;
    const csrf = await browser.csrfOf('/console/customers');
    const form = { _csrf: csrf, idempotencyKey: key, name: 'Twice Ltd', email: '' };
    const first = await browser.request('POST', '/console/customers', form);
    const second = await browser.request('POST', '/console/customers', form);
    assert.equal(first.status, 303);
    assert.equal(second.location, first.location);
    const { rows } = await server.db.query('SELECT 1 FROM customers WHERE tenant_id = $1', [
      user.tenantId,
    ]);
    assert.equal(rows.length, 1);
  });
});

describe('users', () => {
  it('ends a removed user’s sessions at once', async () => {
    const { browser: admin, user } = await signedIn(server, 'admin');
    const colleague = await consoleUser(server, 'finance', { tenantId: user.tenantId });
    const theirs = new ConsoleBrowser(server.url);
    assert.equal((await theirs.signIn(user.tenantId, colleague.email, PASSWORD)).status, 303);
    assert.equal((await theirs.get('/console')).status, 200);
    const removed = await admin.submit(
      '/console/settings/users',
      `/console/settings/users/${colleague.id}/remove`,
      {},
    );
    assert.equal(removed.status, 303);
    assert.equal((await theirs.get('/console')).location, '/console/sign-in');
    assert.equal((await theirs.signIn(user.tenantId, colleague.email, PASSWORD)).status, 401);
  });

  it('lets an admin invite a user, showing the one-time link', async () => {
    const { browser } = await signedIn(server, 'admin');
    const answer = await browser.submit('/console/settings/users', '/console/settings/users', {
      email: 'invitee@example.com',
      role: 'viewer',
      locale: 'de',
    });
    assert.equal(answer.status, 201);
    assert.match(answer.text, /\/console\/invitation\/ten_[0-9A-Za-z]+\.[\w-]{43}/);
  });
});
