import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Role } from '../../src/console/roles.ts';
import { client, createTenantWithKey, startTestApp } from '../helpers.ts';
import { signedIn, type ConsoleBrowser } from './browser.ts';

// No worker: deliveries stay as the tests set them (the worker's own tests attempt them).
// Test endpoints may use http on loopback; nothing listens there, nothing is sent.
const server = await startTestApp({ webhooksAllowLoopback: true, runWorker: false });
const db = server.db;

/**
 * A tenant (test environment) with an endpoint and one delivery of customer.created, failed
 * after its last attempt (answered 500), as the worker leaves it.
 */
async function failedDelivery() {
  const key = await createTenantWithKey(db);
  const api = client(server.url, key.secret);
  const endpoint = await api.post('/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hooks',
    enabledEvents: ['*'],
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  const customer = await api.post('/v1/customers', { name: '<script>alert(1)</script>' });
  assert.equal(customer.status, 201, customer.text);
  const { rows } = await db.query<{ id: string }>(
    `UPDATE webhook_deliveries SET status = 'failed', attempt_count = 10
      WHERE tenant_id = $1 AND endpoint_id = $2 RETURNING id`,
    [key.tenantId, endpoint.body.id],
  );
  const delivery = rows[0]!.id;
  await db.query(
    `INSERT INTO webhook_attempts (tenant_id, environment, delivery_id, attempt, attempted_at,
                                   duration_ms, response_status, error, response_body)
     VALUES ($1, 'test', $2, 10, now(), 42, 500, 'HTTP 500', '<b>down</b>')`,
    [key.tenantId, delivery],
  );
  return { key, api, endpoint: endpoint.body, delivery };
}

/** A user of the tenant whose session shows the test environment. */
async function userOf(tenantId: string, role: Role) {
  const signed = await signedIn(server, role, { tenantId });
  const switched = await signed.browser.submit('/console', '/console/environment', {
    environment: 'test',
    back: '/console/webhooks',
  });
  assert.equal(switched.status, 303);
  return signed;
}

async function statusOf(delivery: string): Promise<string> {
  const { rows } = await db.query('SELECT status FROM webhook_deliveries WHERE id = $1', [
    delivery,
  ]);
  return rows[0].status;
}

async function retryForm(browser: ConsoleBrowser, delivery: string) {
  const path = `/console/webhooks/deliveries/${delivery}`;
  const page = await browser.get(path);
  assert.equal(page.status, 200, page.text);
  const idempotencyKey = /name="idempotencyKey" value="([^"]+)"/.exec(page.text)?.[1];
  assert.ok(idempotencyKey, 'no retry form');
  return { _csrf: await browser.csrfOf(path), idempotencyKey };
}

describe('webhook pages', () => {
  it('shows endpoints and deliveries to every role; endpoint switches to admins only', async () => {
    const { key, endpoint, delivery } = await failedDelivery();
    for (const role of ['viewer', 'finance', 'admin'] as const) {
      const { browser } = await userOf(key.tenantId, role);
      const list = await browser.get('/console/webhooks');
      assert.equal(list.status, 200, role);
      assert.match(list.text, /http:\/\/127\.0\.0\.1:9\/hooks/);
      assert.match(list.text, new RegExp(`href="/console/webhooks/deliveries/${delivery}"`));
      assert.match(list.text, /customer\.created<\/td>/);
      assert.match(
        list.text,
        /<td>Failed<\/td>\s*<td class="num">500<\/td>\s*<td class="num">10<\/td>/,
      );
      const manage = `action="/console/webhooks/endpoints/${endpoint.id}/disable"`;
      if (role === 'admin') assert.ok(list.text.includes(manage));
      else assert.ok(!list.text.includes(manage), role);

      const page = await browser.get(`/console/webhooks/deliveries/${delivery}`);
      assert.equal(page.status, 200);
      // The payload and the receiver's answer, escaped.
      assert.match(page.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      assert.match(page.text, /&lt;b&gt;down&lt;\/b&gt;/);
      assert.doesNotMatch(page.text, /<script>|<b>down/);
      assert.match(page.text, /&quot;type&quot;: &quot;customer\.created&quot;/);
      const retry = `action="/console/webhooks/deliveries/${delivery}/retry"`;
      if (role === 'viewer') assert.ok(!page.text.includes(retry));
      else assert.ok(page.text.includes(retry), role);
    }
  });

  it('pages the deliveries of every endpoint, newest first, 25 at a time', async () => {
    const { key, api } = await failedDelivery();
    const second = await api.post('/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/second',
      enabledEvents: ['customer.created'],
    });
    assert.equal(second.status, 201);
    for (let i = 0; i < 13; i++) await api.post('/v1/customers', { name: `C${i}` });
    // 1 + 13 to the first endpoint, 13 to the second.
    const { browser } = await userOf(key.tenantId, 'viewer');
    const ids = (text: string) =>
      [...text.matchAll(/href="\/console\/webhooks\/deliveries\/([^"]+)"/g)].map((m) => m[1]!);
    const first = await browser.get('/console/webhooks');
    const next = /<a href="([^"]+)" rel="next"/.exec(first.text)![1]!.replaceAll('&amp;', '&');
    const rest = await browser.get(next);
    assert.doesNotMatch(rest.text, /rel="next"/);
    const shown = [...ids(first.text), ...ids(rest.text)];
    assert.equal(ids(first.text).length, 25);
    assert.equal(shown.length, 27);
    const { rows } = await db.query(
      `SELECT id FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC`,
      [key.tenantId],
    );
    assert.deepEqual(
      shown,
      rows.map((r) => r.id),
    );
  });

  it('answers 404 for another tenant’s delivery, to the page and to a retry', async () => {
    const { delivery } = await failedDelivery();
    const other = await failedDelivery();
    const { browser } = await userOf(other.key.tenantId, 'admin');
    assert.equal((await browser.get(`/console/webhooks/deliveries/${delivery}`)).status, 404);
    const form = await retryForm(browser, other.delivery);
    const forged = await browser.request(
      'POST',
      `/console/webhooks/deliveries/${delivery}/retry`,
      form,
    );
    assert.equal(forged.status, 404);
    assert.equal(await statusOf(delivery), 'failed');
  });
});

describe('webhook actions', () => {
  it('retries a failed delivery through the webhooks service, once per form', async () => {
    const { key, delivery } = await failedDelivery();
    const { browser, user } = await userOf(key.tenantId, 'finance');
    const form = await retryForm(browser, delivery);
    const to = `/console/webhooks/deliveries/${delivery}/retry`;
    const answer = await browser.request('POST', to, form);
    assert.equal(answer.status, 303, answer.text);
    assert.equal(answer.location, `/console/webhooks/deliveries/${delivery}`);
    assert.equal(await statusOf(delivery), 'pending');
    // The write is the user's: its idempotency record names them.
    const { rows } = await db.query(
      `SELECT key_id FROM idempotency_keys WHERE tenant_id = $1 AND key LIKE $2`,
      [key.tenantId, `%${form.idempotencyKey}%`],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0].key_id, user.id);
    // The attempt fails again; the same form sent again is not another retry.
    await db.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [delivery]);
    const again = await browser.request('POST', to, form);
    assert.equal(again.status, 303);
    assert.equal(again.location, answer.location);
    assert.equal(await statusOf(delivery), 'failed');
    assert.match((await browser.get(answer.location!)).text, /Retry now/);
  });

  it("refuses a viewer's forged retry and a finance user's endpoint switch with 403", async () => {
    const { key, api, endpoint, delivery } = await failedDelivery();
    const { browser: admin } = await userOf(key.tenantId, 'admin');
    const form = await retryForm(admin, delivery);
    const { browser: viewer } = await userOf(key.tenantId, 'viewer');
    const csrf = await viewer.csrfOf('/console/webhooks');
    const retry = await viewer.request('POST', `/console/webhooks/deliveries/${delivery}/retry`, {
      _csrf: csrf,
      idempotencyKey: form.idempotencyKey,
    });
    assert.equal(retry.status, 403);
    assert.equal(await statusOf(delivery), 'failed');
    const { browser: finance } = await userOf(key.tenantId, 'finance');
    const off = await finance.request(
      'POST',
      `/console/webhooks/endpoints/${endpoint.id}/disable`,
      {
        _csrf: await finance.csrfOf('/console/webhooks'),
        idempotencyKey: 'finance-disable',
      },
    );
    assert.equal(off.status, 403);
    assert.equal((await api.get(`/v1/webhook-endpoints/${endpoint.id}`)).body.disabled, false);
  });

  it('lets an admin disable and enable an endpoint', async () => {
    const { key, api, endpoint } = await failedDelivery();
    const { browser } = await userOf(key.tenantId, 'admin');
    for (const [action, disabled] of [
      ['disable', true],
      ['enable', false],
    ] as const) {
      const to = `/console/webhooks/endpoints/${endpoint.id}/${action}`;
      const page = await browser.get('/console/webhooks');
      const form = page.text.split('<form').find((f) => f.includes(`action="${to}"`));
      assert.ok(form, action);
      const idempotencyKey = /name="idempotencyKey" value="([^"]+)"/.exec(form)![1]!;
      const answer = await browser.submit('/console/webhooks', to, { idempotencyKey });
      assert.equal(answer.status, 303, answer.text);
      assert.equal(answer.location, '/console/webhooks');
      assert.equal((await api.get(`/v1/webhook-endpoints/${endpoint.id}`)).body.disabled, disabled);
    }
  });

  it('refuses a retry without its CSRF token', async () => {
    const { key, delivery } = await failedDelivery();
    const { browser } = await userOf(key.tenantId, 'admin');
    const { idempotencyKey } = await retryForm(browser, delivery);
    const bare = await browser.request('POST', `/console/webhooks/deliveries/${delivery}/retry`, {
      idempotencyKey,
    });
    assert.equal(bare.status, 403);
    assert.match(bare.text, /The form has expired/);
    assert.equal(await statusOf(delivery), 'failed');
  });
});
