import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Role } from '../../src/console/roles.ts';
import { createCustomer, startInvoiceApp, tenantApi, type Api } from '../invoices/fixtures.ts';
import { createPrice } from '../subscriptions/fixtures.ts';
import { signedIn, type ConsoleBrowser } from './browser.ts';

const server = await startInvoiceApp();

/** A tenant (live) with a monthly subscription of Basic (3,000) × 1, and Pro (5,000) in the catalogue. */
async function subscribed() {
  const { api, key } = await tenantApi(server, { environment: 'live' });
  const customer = await createCustomer(api, { name: 'Ada <Lovelace>' });
  const basic = await createPrice(api, { unitAmount: 3000, name: 'Basic' });
  const pro = await createPrice(api, { unitAmount: 5000, name: 'Pro' });
  const created = await api.post('/v1/subscriptions', {
    customerId: customer.id,
    items: [{ priceId: basic.id, quantity: 1 }],
  });
  assert.equal(created.status, 201, created.text);
  return { api, key, customer, basic, pro, sub: created.body };
}

async function userOf(tenantId: string, role: Role) {
  return signedIn(server, role, { tenantId });
}

/** The hidden idempotency key of the form posting to `action` on the page at `path`. */
async function formKey(browser: ConsoleBrowser, path: string, action: string): Promise<string> {
  const page = await browser.get(path);
  assert.equal(page.status, 200, page.text);
  const form = page.text.split('<form').find((f) => f.includes(`action="${action}"`));
  assert.ok(form, `no form to ${action} on ${path}`);
  return /name="idempotencyKey" value="([^"]+)"/.exec(form)![1]!;
}

/** Sends the form to `/console/subscriptions/{id}/{action}` as the page offers it. */
async function act(
  browser: ConsoleBrowser,
  id: string,
  action: string,
  fields: Record<string, string> = {},
) {
  const path = `/console/subscriptions/${id}`;
  const to = `${path}/${action}`;
  const idempotencyKey = await formKey(browser, path, to);
  const csrf = await browser.csrfOf(path);
  const form = { _csrf: csrf, idempotencyKey, ...fields };
  return { answer: await browser.request('POST', to, form), form, to };
}

async function eventsOf(api: Api, type: string, id: string) {
  const res = await api.get(`/v1/events?type=${type}&limit=100`);
  assert.equal(res.status, 200, res.text);
  return res.body.data.filter((e: any) => e.data.object.id === id);
}

describe('subscription pages', () => {
  it('shows the list and a subscription to every role, filtered by status', async () => {
    const { key, sub } = await subscribed();
    for (const role of ['viewer', 'finance', 'admin'] as const) {
      const { browser } = await userOf(key.tenantId, role);
      const list = await browser.get('/console/subscriptions');
      assert.equal(list.status, 200);
      assert.match(list.text, new RegExp(`/console/subscriptions/${sub.id}`));
      assert.match(list.text, /Ada &lt;Lovelace&gt;/);
      const active = await browser.get('/console/subscriptions?status=active');
      assert.match(active.text, new RegExp(sub.id));
      const canceled = await browser.get('/console/subscriptions?status=canceled');
      assert.doesNotMatch(canceled.text, new RegExp(sub.id));
      assert.match(canceled.text, /No subscription has this status/);
      const page = await browser.get(`/console/subscriptions/${sub.id}`);
      assert.equal(page.status, 200);
      assert.match(page.text, new RegExp(`href="/console/customers/${sub.customerId}"`));
      // The period's invoice, linked; the upcoming invoice of the next period (30.00).
      assert.match(page.text, new RegExp(`href="/console/invoices/${sub.latestInvoiceId}"`));
      assert.match(page.text, /Upcoming invoice/);
      assert.match(page.text, /€30\.00/);
      const forms = /action="\/console\/subscriptions\/[^"]+\/(change|cancel|pause)"/;
      if (role === 'viewer') assert.doesNotMatch(page.text, forms);
      else assert.match(page.text, forms);
    }
  });

  it('refuses an unknown status and pages 25 at a time', async () => {
    const { api, key, customer, basic } = await subscribed();
    for (let i = 0; i < 25; i++) {
      const made = await api.post('/v1/subscriptions', {
        customerId: customer.id,
        items: [{ priceId: basic.id }],
      });
      assert.equal(made.status, 201, made.text);
    }
    const { browser } = await userOf(key.tenantId, 'viewer');
    assert.equal((await browser.get('/console/subscriptions?status=nonsense')).status, 400);
    const first = await browser.get('/console/subscriptions');
    const rows = (text: string) =>
      text.match(/<tr>\s*<td><a href="\/console\/subscriptions\//g) ?? [];
    assert.equal(rows(first.text).length, 25);
    const next = /<a href="([^"]+)" rel="next"/.exec(first.text)![1]!.replaceAll('&amp;', '&');
    const second = await browser.get(next);
    assert.equal(second.status, 200);
    assert.equal(rows(second.text).length, 1);
    assert.doesNotMatch(second.text, /rel="next"/);
  });

  it('answers 404 for another tenant’s subscription, to pages and actions', async () => {
    const { sub } = await subscribed();
    const other = await subscribed();
    const { browser } = await userOf(other.key.tenantId, 'admin');
    assert.equal((await browser.get(`/console/subscriptions/${sub.id}`)).status, 404);
    const csrf = await browser.csrfOf('/console/subscriptions');
    const forged = await browser.request('POST', `/console/subscriptions/${sub.id}/cancel`, {
      _csrf: csrf,
      idempotencyKey: 'k-404',
      at: 'now',
    });
    assert.equal(forged.status, 404);
    const { api } = other;
    assert.equal((await api.get(`/v1/subscriptions/${sub.id}`)).status, 404);
  });
});

describe('subscription actions', () => {
  it('changes a quantity through the service, the event naming the user, once per form', async () => {
    const { api, key, sub } = await subscribed();
    const { browser, user } = await userOf(key.tenantId, 'finance');
    const item = sub.items[0].id;
    const { answer, form, to } = await act(browser, sub.id, 'change', {
      itemId: item,
      quantity: '3',
    });
    assert.equal(answer.status, 303, answer.text);
    assert.equal(answer.location, `/console/subscriptions/${sub.id}`);
    const again = await browser.request('POST', to, form);
    assert.equal(again.status, 303);
    assert.equal(again.location, answer.location);
    const now = await api.get(`/v1/subscriptions/${sub.id}`);
    assert.equal(now.body.items[0].quantity, 3);
    const events = await eventsOf(api, 'subscription.updated', sub.id);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].actor, { type: 'user', id: user.id, email: user.email });
  });

  it('changes an item’s price to another of the catalogue', async () => {
    const { api, key, sub, pro } = await subscribed();
    const { browser } = await userOf(key.tenantId, 'admin');
    const page = await browser.get(`/console/subscriptions/${sub.id}`);
    assert.match(page.text, new RegExp(`<option value="${pro.id}">Pro`));
    const { answer } = await act(browser, sub.id, 'change', {
      itemId: sub.items[0].id,
      priceId: pro.id,
      quantity: '',
    });
    assert.equal(answer.status, 303, answer.text);
    const now = await api.get(`/v1/subscriptions/${sub.id}`);
    assert.equal(now.body.items[0].price.id, pro.id);
  });

  it('refuses a change without anything to change, or a bad quantity, and changes nothing', async () => {
    const { api, key, sub } = await subscribed();
    const { browser } = await userOf(key.tenantId, 'finance');
    for (const quantity of ['', 'three', '-1']) {
      const { answer } = await act(browser, sub.id, 'change', {
        itemId: sub.items[0].id,
        quantity,
      });
      assert.equal(answer.status, 400, quantity);
      assert.match(answer.text, /This could not be done/);
    }
    assert.equal((await api.get(`/v1/subscriptions/${sub.id}`)).body.items[0].quantity, 1);
    assert.equal((await eventsOf(api, 'subscription.updated', sub.id)).length, 0);
  });

  it('cancels at the period’s end, undoes it, then cancels now', async () => {
    const { api, key, sub } = await subscribed();
    const { browser, user } = await userOf(key.tenantId, 'finance');
    const later = await act(browser, sub.id, 'cancel', { at: 'period_end' });
    assert.equal(later.answer.status, 303, later.answer.text);
    assert.equal((await api.get(`/v1/subscriptions/${sub.id}`)).body.cancelAtPeriodEnd, true);
    const page = await browser.get(`/console/subscriptions/${sub.id}`);
    assert.match(page.text, /Canceled at the end of the current period/);
    const keep = await act(browser, sub.id, 'keep');
    assert.equal(keep.answer.status, 303, keep.answer.text);
    assert.equal((await api.get(`/v1/subscriptions/${sub.id}`)).body.cancelAtPeriodEnd, false);
    const now = await act(browser, sub.id, 'cancel', { at: 'now' });
    assert.equal(now.answer.status, 303, now.answer.text);
    const ended = await api.get(`/v1/subscriptions/${sub.id}`);
    assert.equal(ended.body.status, 'canceled');
    const [canceled] = await eventsOf(api, 'subscription.canceled', sub.id);
    assert.deepEqual(canceled.actor, { type: 'user', id: user.id, email: user.email });
    // A canceled subscription offers no action and has no upcoming invoice.
    const last = await browser.get(`/console/subscriptions/${sub.id}`);
    assert.match(last.text, /No invoice is coming/);
    assert.doesNotMatch(last.text, /\/cancel"/);
  });

  it('pauses with a behaviour and resumes', async () => {
    const { api, key, sub } = await subscribed();
    const { browser, user } = await userOf(key.tenantId, 'admin');
    const paused = await act(browser, sub.id, 'pause', { behavior: 'keep_as_draft' });
    assert.equal(paused.answer.status, 303, paused.answer.text);
    const now = await api.get(`/v1/subscriptions/${sub.id}`);
    assert.equal(now.body.status, 'paused');
    assert.equal(now.body.pause.behavior, 'keep_as_draft');
    const page = await browser.get(`/console/subscriptions/${sub.id}`);
    assert.match(page.text, /Kept as drafts/);
    const resumed = await act(browser, sub.id, 'resume');
    assert.equal(resumed.answer.status, 303, resumed.answer.text);
    assert.equal((await api.get(`/v1/subscriptions/${sub.id}`)).body.status, 'active');
    for (const type of ['subscription.paused', 'subscription.resumed']) {
      const [event] = await eventsOf(api, type, sub.id);
      assert.deepEqual(event.actor, { type: 'user', id: user.id, email: user.email }, type);
    }
  });

  it("refuses a viewer's forged POST with 403 and changes nothing", async () => {
    const { api, key, sub } = await subscribed();
    const { browser } = await userOf(key.tenantId, 'viewer');
    const csrf = await browser.csrfOf(`/console/subscriptions/${sub.id}`);
    for (const [action, fields] of [
      ['cancel', { at: 'now' }],
      ['pause', { behavior: 'void' }],
      ['change', { itemId: sub.items[0].id, quantity: '9' }],
      ['resume', {}],
      ['keep', {}],
    ] as const) {
      const forged = await browser.request('POST', `/console/subscriptions/${sub.id}/${action}`, {
        _csrf: csrf,
        idempotencyKey: `forged-${action}`,
        ...fields,
      });
      assert.equal(forged.status, 403, action);
    }
    const now = await api.get(`/v1/subscriptions/${sub.id}`);
    assert.equal(now.body.status, 'active');
    assert.equal(now.body.items[0].quantity, 1);
  });

  it('refuses a form without its CSRF token, or with another session’s', async () => {
    const { api, key, sub } = await subscribed();
    const { browser } = await userOf(key.tenantId, 'finance');
    const { browser: other } = await userOf(key.tenantId, 'finance');
    const to = `/console/subscriptions/${sub.id}/cancel`;
    const idempotencyKey = await formKey(browser, `/console/subscriptions/${sub.id}`, to);
    const bare = await browser.request('POST', to, { idempotencyKey, at: 'now' });
    assert.equal(bare.status, 403);
    assert.match(bare.text, /The form has expired/);
    const theirs = await other.csrfOf(`/console/subscriptions/${sub.id}`);
    const crossed = await browser.request('POST', to, { _csrf: theirs, idempotencyKey, at: 'now' });
    assert.equal(crossed.status, 403);
    assert.equal((await api.get(`/v1/subscriptions/${sub.id}`)).body.status, 'active');
  });
});
