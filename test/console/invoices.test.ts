import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Role } from '../../src/console/roles.ts';
import { completeSeller, issuedInvoice } from '../hosted/fixtures.ts';
import { createCustomer, createInvoice, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { ConsoleBrowser, signedIn } from './browser.ts';

const server = await startInvoiceApp();

/** A signed-in user of `role` and an API key of its tenant's live environment. */
async function tenantOf(role: Role) {
  const { browser, user } = await signedIn(server, role);
  const { api } = await tenantApi(server, { tenantId: user.tenantId, environment: 'live' });
  await completeSeller(server.db, user.tenantId);
  return { browser, user, api };
}

/** Sends the form of the invoice's page whose action ends in `action`, with `fields`. */
async function act(
  browser: ConsoleBrowser,
  id: string,
  action: string,
  fields: Record<string, string> = {},
  from = `/console/invoices/${id}`,
) {
  const page = await browser.get(from);
  const form = new RegExp(
    `action="/console/invoices/${id}/${action}"[^]*?name="idempotencyKey" value="([^"]+)"`,
  ).exec(page.text);
  const idempotencyKey = form?.[1] ?? 'forged-key';
  return browser.submit(from, `/console/invoices/${id}/${action}`, { idempotencyKey, ...fields });
}

async function eventsOf(tenantId: string, type: string) {
  const { rows } = await server.db.query<{ object_id: string; actor: unknown }>(
    `SELECT object_id, actor FROM events WHERE tenant_id = $1 AND type = $2 ORDER BY created_at`,
    [tenantId, type],
  );
  return rows;
}

describe('invoice pages', () => {
  it('shows the list and an invoice to every role; actions only to finance and admin', async () => {
    const { browser, user, api } = await tenantOf('viewer');
    const customer = await createCustomer(api, { name: 'Ada <Lovelace>' });
    const issued = await issuedInvoice(api, { customerId: customer.id });
    const list = await browser.get('/console/invoices');
    assert.equal(list.status, 200);
    assert.ok(list.text.includes(issued.number));
    assert.ok(list.text.includes('Ada &lt;Lovelace&gt;'));
    const page = await browser.get(`/console/invoices/${issued.id}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /Datenanalyse/);
    assert.match(page.text, /19/);
    assert.doesNotMatch(page.text, /idempotencyKey/);
    for (const role of ['finance', 'admin'] as const) {
      const { browser: other } = await signedIn(server, role, { tenantId: user.tenantId });
      const shown = await other.get(`/console/invoices/${issued.id}`);
      assert.equal(shown.status, 200);
      assert.match(shown.text, new RegExp(`/console/invoices/${issued.id}/payments`));
      assert.match(shown.text, new RegExp(`/console/invoices/${issued.id}/credit-notes`));
    }
  });

  it('filters by status, customer and issue date, finds by number, and pages by 25', async () => {
    const { browser, api } = await tenantOf('finance');
    const customer = await createCustomer(api, { name: 'Grace' });
    const other = await createCustomer(api, { name: 'Other' });
    const issued = await issuedInvoice(api, { customerId: customer.id });
    for (let i = 0; i < 26; i++) await createInvoice(api, { customerId: other.id });
    const first = await browser.get('/console/invoices');
    assert.equal(
      (first.text.match(/<tr><td><a href="\/console\/invoices\/inv_/g) ?? []).length,
      25,
    );
    const next = /href="([^"]+)" rel="next"/.exec(first.text)![1]!.replaceAll('&amp;', '&');
    const second = await browser.get(next);
    assert.equal(second.status, 200);
    assert.equal(
      (second.text.match(/<tr><td><a href="\/console\/invoices\/inv_/g) ?? []).length,
      2,
    );
    assert.doesNotMatch(second.text, /rel="next"/);

    const open = await browser.get('/console/invoices?status=open&customer=&from=&to=');
    assert.ok(open.text.includes(issued.number));
    assert.doesNotMatch(open.text, /<td>Draft<\/td>/);
    const byCustomer = await browser.get(`/console/invoices?customer=${other.id}&status=`);
    assert.ok(!byCustomer.text.includes(issued.number));
    const found = await browser.get(`/console/invoices?q=${issued.number}`);
    assert.ok(found.text.includes(`/console/invoices/${issued.id}`));
    const prefix = await browser.get(`/console/invoices?q=${issued.number.slice(0, 5)}`);
    assert.ok(prefix.text.includes(`/console/invoices/${issued.id}`));
    const byId = await browser.get(`/console/invoices?q=${issued.id}`);
    assert.ok(byId.text.includes(issued.number));
    const none = await browser.get('/console/invoices?q=INV-9');
    assert.match(none.text, /No invoice matches/);
    const today = new Date().toISOString().slice(0, 10);
    const dated = await browser.get(`/console/invoices?from=${today}&to=${today}`);
    assert.ok(dated.text.includes(issued.number));
    assert.doesNotMatch(dated.text, /<td>Draft<\/td>/);
    const before = await browser.get('/console/invoices?to=2000-01-01');
    const drafts = await browser.get('/console/invoices?status=draft&from=2000-01-01');
    assert.match(drafts.text, /No invoices\./);
    assert.match((await browser.get('/console/invoices?status=draft')).text, /<td>Draft<\/td>/);
    assert.ok(!before.text.includes(issued.number));
    assert.equal((await browser.get('/console/invoices?status=bogus')).status, 400);
    assert.equal((await browser.get('/console/invoices?from=2026-02-30')).status, 400);
    // A cursor of one list is refused by another.
    assert.equal((await browser.get(`${next}&status=open`)).status, 400);
  });

  it('sends the stored PDF and the e-invoice as the API does', async () => {
    const { browser, api } = await tenantOf('viewer');
    const issued = await issuedInvoice(api);
    const pdf = await fetch(`${server.url}/console/invoices/${issued.id}/pdf`, {
      headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.match(pdf.headers.get('content-disposition')!, /^inline; filename=".+\.pdf"$/);
    const bytes = Buffer.from(await pdf.arrayBuffer());
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    const viaApi = await api.get(`/v1/invoices/${issued.id}/pdf`);
    assert.equal(viaApi.status, 200);
    const einvoice = await browser.get(`/console/invoices/${issued.id}/e-invoice?format=ubl`);
    const apiEinvoice = await api.get(`/v1/invoices/${issued.id}/e-invoice?format=ubl`);
    assert.equal(einvoice.status, apiEinvoice.status);
    if (einvoice.status === 200) {
      assert.equal(einvoice.headers.get('content-type'), 'application/xml');
      assert.match(einvoice.headers.get('content-disposition')!, /^attachment; filename=/);
    }
  });

  it('answers 404 for another tenant’s invoice, its documents and its actions', async () => {
    const theirs = await tenantOf('admin');
    const draft = await createInvoice(theirs.api, {
      customerId: (await createCustomer(theirs.api)).id,
      lines: [{ description: 'Work', quantity: 1, unitAmount: 1000 }],
    });
    const { browser: mine } = await tenantOf('admin');
    assert.equal((await theirs.browser.get(`/console/invoices/${draft.id}`)).status, 200);
    assert.equal((await mine.get(`/console/invoices/${draft.id}`)).status, 404);
    assert.equal((await mine.get(`/console/invoices/${draft.id}/pdf`)).status, 404);
    const issue = await mine.submit('/console/invoices', `/console/invoices/${draft.id}/issue`, {
      idempotencyKey: 'k-1',
    });
    assert.equal(issue.status, 404);
    const pay = await mine.submit('/console/invoices', `/console/invoices/${draft.id}/payments`, {
      idempotencyKey: 'k-2',
      amount: '1',
      date: '',
      method: 'cash',
    });
    assert.equal(pay.status, 404);
    const { rows } = await server.db.query('SELECT status FROM invoices WHERE id = $1', [draft.id]);
    assert.equal(rows[0].status, 'draft');
  });
});

describe('invoice actions', () => {
  it('issues a draft once, however often the form is sent, its event naming the user', async () => {
    const { browser, user, api } = await tenantOf('finance');
    const draft = await createInvoice(api, {
      customerId: (await createCustomer(api)).id,
      lines: [{ description: 'Work', quantity: 2, unitAmount: 5000 }],
    });
    const path = `/console/invoices/${draft.id}`;
    const page = await browser.get(path);
    const key = new RegExp(`action="${path}/issue"[^]*?name="idempotencyKey" value="([^"]+)"`).exec(
      page.text,
    )![1]!;
    const csrf = await browser.csrfOf(path);
    const form = { _csrf: csrf, idempotencyKey: key };
    const first = await browser.request('POST', `${path}/issue`, form);
    const again = await browser.request('POST', `${path}/issue`, form);
    assert.equal(first.status, 303);
    assert.equal(first.location, path);
    assert.equal(again.status, 303);
    assert.equal(again.location, path);
    const events = await eventsOf(user.tenantId, 'invoice.issued');
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.actor, { type: 'user', id: user.id, email: user.email });
    const shown = await browser.get(path);
    assert.match(shown.text, /INV-\d+/);
  });

  it('records a partial payment, makes a credit note, sends and voids', async () => {
    const { browser, user, api } = await tenantOf('finance');
    const issued = await issuedInvoice(api, { lines: 1 }); // 125.00 + 19 % = 148.75
    const paid = await act(browser, issued.id, 'payments', {
      amount: '40,25',
      date: '',
      method: 'bank_transfer',
      reference: 'SEPA 42',
    });
    assert.equal(paid.status, 303, paid.text);
    let invoice = (await api.get(`/v1/invoices/${issued.id}`)).body;
    assert.equal(invoice.amountPaid, 4025);
    assert.equal(invoice.payments[0].reference, 'SEPA 42');
    const [payment] = await eventsOf(user.tenantId, 'payment.created');
    assert.deepEqual(payment!.actor, { type: 'user', id: user.id, email: user.email });

    const tooMuch = await act(browser, issued.id, 'payments', {
      amount: '1000',
      date: '',
      method: 'cash',
    });
    assert.equal(tooMuch.status, 400);
    const badAmount = await act(browser, issued.id, 'payments', {
      amount: '1.234',
      date: '',
      method: 'cash',
    });
    assert.equal(badAmount.status, 400);

    const credited = await act(browser, issued.id, 'credit-notes', {
      amount: '10',
      reason: 'order_change',
    });
    assert.equal(credited.status, 303, credited.text);
    const lineCredit = await act(browser, issued.id, 'credit-notes', {
      amount: '5.95',
      description: '',
      invoiceLineId: invoice.lines[0].id,
      reason: '',
    });
    assert.equal(lineCredit.status, 303, lineCredit.text);
    invoice = (await api.get(`/v1/invoices/${issued.id}`)).body;
    assert.equal(invoice.amountCredited, 1595);
    const notes = await eventsOf(user.tenantId, 'credit_note.created');
    assert.equal(notes.length, 2);
    assert.deepEqual(notes[0]!.actor, { type: 'user', id: user.id, email: user.email });
    const page = await browser.get(`/console/invoices/${issued.id}`);
    assert.match(page.text, /CN-\d+/);

    const sent = await act(browser, issued.id, 'send');
    assert.equal(sent.status, 303, sent.text);
    invoice = (await api.get(`/v1/invoices/${issued.id}`)).body;
    assert.equal(invoice.email.status, 'queued');

    const voided = await act(browser, issued.id, 'void');
    assert.equal(voided.status, 303, voided.text);
    const [event] = await eventsOf(user.tenantId, 'invoice.voided');
    assert.deepEqual(event!.actor, { type: 'user', id: user.id, email: user.email });
    // A void invoice offers no more actions; voiding again is the service's refusal.
    const after = await browser.get(`/console/invoices/${issued.id}`);
    assert.doesNotMatch(after.text, /idempotencyKey/);
    const twice = await browser.submit(
      `/console/invoices/${issued.id}`,
      `/console/invoices/${issued.id}/void`,
      {
        idempotencyKey: 'another-key',
      },
    );
    assert.equal(twice.status, 409);
  });

  it("refuses a viewer's forged POST and a form without its CSRF token", async () => {
    const { browser, user, api } = await tenantOf('viewer');
    const issued = await issuedInvoice(api, { lines: 1 });
    for (const [action, fields] of [
      ['void', {}],
      ['payments', { amount: '1', date: '', method: 'cash' }],
      ['credit-notes', { amount: '1' }],
    ] as const) {
      const answer = await browser.submit(
        `/console/invoices/${issued.id}`,
        `/console/invoices/${issued.id}/${action}`,
        {
          idempotencyKey: `forged-${action}`,
          ...fields,
        },
      );
      assert.equal(answer.status, 403, action);
    }
    const invoice = (await api.get(`/v1/invoices/${issued.id}`)).body;
    assert.equal(invoice.status, 'open');
    assert.equal(invoice.amountPaid, 0);
    assert.equal(invoice.amountCredited, 0);
    const { browser: finance } = await signedIn(server, 'finance', { tenantId: user.tenantId });
    const noToken = await finance.request('POST', `/console/invoices/${issued.id}/void`, {
      idempotencyKey: 'no-csrf',
    });
    assert.equal(noToken.status, 403);
    assert.match(noToken.text, /expired/);
    assert.equal((await api.get(`/v1/invoices/${issued.id}`)).body.status, 'open');
  });
});
