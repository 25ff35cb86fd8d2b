import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BillingApiError,
  BillingClient,
  verifyWebhook,
  WebhookVerificationError,
  type Customer,
  type Event,
} from '../../clients/typescript/src/index.ts';
import { SCOPES } from '../../src/keys/scopes.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import {
  createTenantWithKey,
  createTestDatabase,
  startTestServer,
  type TestServer,
  waitFor,
} from '../helpers.ts';

// The typed client (clients/typescript) against the real server: a seller's day from customer
// to payment, the lists walked with `for await`, a write retried after its answer was lost,
// a rate limit waited out, typed errors, and a real webhook delivery verified.

const url = await createTestDatabase();
const server: TestServer = await startTestServer(url, { webhooksAllowLoopback: true });
// The same database behind a server with a low rate limit (2 requests a second per key).
const limited: TestServer = await startTestServer(url, { rateLimitTest: 2, runWorker: false });
const apiKey = (await createTenantWithKey(server.db, { scopes: [...SCOPES] })).secret;
const client = new BillingClient({ apiKey, baseUrl: server.url, baseDelayMs: 20 });
const receiver = await startReceiver();

/** A fetch that records each attempt and can lose answers the server already gave. */
function recordingFetch(loseAnswer: (url: string, method: string) => boolean = () => false) {
  const attempts: { method: string; url: string; status?: number; key?: string; at: number }[] = [];
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    const key = (init?.headers as Record<string, string> | undefined)?.['idempotency-key'];
    const attempt: (typeof attempts)[number] = { method, url, key, at: Date.now() };
    attempts.push(attempt);
    const response = await fetch(input, init);
    attempt.status = response.status;
    if (loseAnswer(url, method)) {
      // The server has done the work and answered; the answer never reaches the client.
      await response.arrayBuffer();
      throw new TypeError('fetch failed: connection reset');
    }
    return response;
  };
  return { attempts, fetch: fetcher };
}

describe('the TypeScript client', () => {
  it('runs a seller’s day: customer, tax rate, invoice, issue, PDF, payment, credit note, events', async () => {
    const endpoint = await client.webhookEndpoints.create({
      url: receiver.url('/billing'),
      enabledEvents: ['*'],
    });
    receiver.expectSecret('/billing', endpoint.secret);

    const me = await client.whoami();
    assert.equal(me.environment, 'test');
    const customer = await client.customers.create({
      name: 'Müller Maschinenbau GmbH',
      email: 'billing@mueller.example',
      address: { line1: 'Hauptstraße 5', city: 'München', postalCode: '80331', country: 'DE' },
      taxIds: [{ type: 'eu_vat', value: 'DE123456789' }],
    });
    // What the API returned goes back in as it is: the types of request and response agree.
    await client.customers.update(customer.id, { taxIds: customer.taxIds });
    const vat = await client.taxRates.create({
      displayName: 'VAT',
      percentage: 19,
      inclusive: false,
      taxType: 'vat',
    });
    const draft = await client.invoices.create({
      customerId: customer.id,
      currency: 'eur',
      defaultTaxRates: [vat.id],
      lines: [{ description: 'Consulting', quantity: 10, unitAmount: 15_000 }],
      daysUntilDue: 30,
    });
    const withLine = await client.invoices.addLine(draft.id, {
      description: 'Travel',
      unitAmount: 20_000,
    });
    assert.equal(withLine.subtotal, 170_000);
    assert.equal(withLine.total, 202_300);

    const open = await client.invoices.issue(draft.id);
    assert.equal(open.status, 'open');
    assert.equal(open.number, 'INV-000001');
    const relinked = await client.invoices.replaceHostedLink(open.id);
    assert.ok(relinked.hostedInvoiceUrl && relinked.hostedInvoiceUrl !== open.hostedInvoiceUrl);
    const page = await fetch(relinked.hostedInvoiceUrl);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /INV-000001/);
    const pdf = await client.invoices.pdf(open.id);
    assert.equal(new TextDecoder().decode(pdf.data.slice(0, 5)), '%PDF-');
    assert.equal(pdf.contentType, 'application/pdf');
    assert.match(pdf.filename ?? '', /INV-000001/);

    const credit = await client.creditNotes.create({
      invoiceId: open.id,
      amount: 2_300,
      reason: 'order_change',
    });
    assert.equal(credit.number, 'CN-000001');
    const transfer = await client.invoices.addPayment(open.id, {
      amount: 50_000,
      method: 'bank_transfer',
      reference: 'SEPA 4711',
    });
    assert.equal(transfer.status, 'succeeded');
    assert.deepEqual(transfer.invoice, {
      id: open.id,
      status: 'open',
      amountRemaining: 150_000,
    });
    const paid = await client.invoices.pay(open.id, { method: 'cash', reference: 'Till 3' });
    assert.equal(paid.status, 'paid');
    assert.equal(paid.amountPaid, 200_000);
    assert.equal(paid.amountRemaining, 0);
    const payments = await client.payments.list({ invoiceId: open.id }).toArray();
    assert.deepEqual(payments.map((p) => p.amount).sort(), [150_000, 50_000]);
    const rest = payments.find((p) => p.amount === 150_000)!;
    assert.equal(rest.method, 'cash');
    assert.equal(rest.reference, 'Till 3');
    const receivables = await client.reports.receivables();
    assert.equal(receivables.object, 'receivables_report');
    const csv = await client.reports.receivablesCsv();
    assert.equal(csv.contentType.split(';')[0], 'text/csv');

    const issued = await client.events.list({ type: 'invoice.issued' });
    const event: Event = issued.data[0]!;
    // The event's object is a union of the resources, told apart by `object`.
    const object = event.data.object;
    assert.equal(object.object, 'invoice');
    if (object.object === 'invoice') assert.equal(object.number, 'INV-000001');
    const types = new Set<string>();
    for await (const each of client.events.list()) types.add(each.type);
    for (const type of [
      'customer.created',
      'invoice.issued',
      'invoice.paid',
      'credit_note.created',
    ])
      assert.ok(types.has(type), type);

    // A real delivery, verified as a receiver would verify it.
    const delivery = await waitFor(
      () => receiver.at('/billing').find((m) => m.body.type === 'invoice.paid'),
      'the invoice.paid delivery',
    );
    const payload = await verifyWebhook(delivery.raw, delivery.headers, endpoint.secret);
    assert.equal(payload.type, 'invoice.paid');
    assert.equal(payload.data.object.object, 'invoice');
    await assert.rejects(
      verifyWebhook(delivery.raw.replace('paid', 'void'), delivery.headers, endpoint.secret),
      WebhookVerificationError,
    );
    await assert.rejects(
      verifyWebhook(delivery.raw, delivery.headers, endpoint.secret, {
        now: new Date(Date.now() + 10 * 60_000),
      }),
      /tolerance/,
    );
    await assert.rejects(
      verifyWebhook(delivery.raw, delivery.headers, `whsec_${btoa('another secret, 24 bytes')}`),
      /no signature matches/,
    );
  });

  it('walks hundreds of customers with the async iterator, each exactly once', async () => {
    const email = 'paging@example.com';
    const created = new Set<string>();
    for (let i = 0; i < 230; i++) {
      created.add((await client.customers.create({ name: `Customer ${i}`, email })).id);
    }
    const seen: Customer[] = [];
    const list = client.customers.list({ email, limit: 40 });
    let pages = 0;
    for await (const page of list.pages()) {
      pages++;
      assert.ok(page.data.length <= 40);
    }
    for await (const customer of client.customers.list({ email, limit: 40 })) seen.push(customer);
    assert.equal(pages, 6);
    assert.equal(seen.length, 230);
    assert.deepEqual(new Set(seen.map((c) => c.id)), created);
    assert.equal((await list).data.length, 40, 'awaiting a list gives its first page');
  });

  it('retries a write whose answer was lost with the same Idempotency-Key and creates one object', async () => {
    let lost = 0;
    const recorder = recordingFetch(
      (url, method) => method === 'POST' && url.endsWith('/v1/customers') && lost++ === 0,
    );
    const retrying = new BillingClient({
      apiKey,
      baseUrl: server.url,
      baseDelayMs: 20,
      fetch: recorder.fetch,
    });
    const email = 'once@example.com';
    const customer = await retrying.customers.create({ name: 'Exactly once', email });
    assert.equal(recorder.attempts.length, 2);
    assert.deepEqual(
      recorder.attempts.map((a) => a.status),
      [201, 201],
    );
    assert.ok(recorder.attempts[0]!.key);
    assert.equal(recorder.attempts[0]!.key, recorder.attempts[1]!.key);
    const listed = await client.customers.list({ email });
    assert.deepEqual(
      listed.data.map((c) => c.id),
      [customer.id],
    );
    // A write of its own gets a key of its own.
    await retrying.customers.create({ name: 'Another', email });
    assert.notEqual(recorder.attempts[2]!.key, recorder.attempts[0]!.key);
  });

  it('waits out 429 for as long as Retry-After says, then succeeds', async () => {
    const recorder = recordingFetch();
    const throttled = new BillingClient({
      apiKey,
      baseUrl: limited.url,
      baseDelayMs: 10,
      fetch: recorder.fetch,
    });
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 5 }, () => throttled.whoami()));
    assert.equal(answers.length, 5);
    const refused = recorder.attempts.filter((a) => a.status === 429);
    assert.ok(refused.length >= 3, `${refused.length} answers were 429`);
    // Every retry after a 429 came at least a second (Retry-After: 1) after the refused attempt.
    const retries = recorder.attempts.slice(5);
    assert.ok(retries.length >= refused.length);
    const firstRefusal = Math.min(...refused.map((a) => a.at));
    for (const retry of retries)
      assert.ok(retry.at - firstRefusal >= 900, 'waited for Retry-After');
    assert.ok(Date.now() - started >= 900);
  });

  it('throws errors typed by code, with status, requestId and param, and retries none of them', async () => {
    const recorder = recordingFetch();
    const strict = new BillingClient({ apiKey, baseUrl: server.url, fetch: recorder.fetch });
    const missing = await strict.invoices.get('inv_missing').catch((e: unknown) => e);
    assert.ok(missing instanceof BillingApiError);
    assert.equal(missing.code, 'resource_missing');
    assert.equal(missing.status, 404);
    assert.match(missing.requestId ?? '', /^req_/);

    const invalid = await strict.invoices
      .create({ customerId: 'cus_x', currency: 'EURO' })
      .catch((e: unknown) => e);
    assert.ok(invalid instanceof BillingApiError);
    assert.equal(invalid.code, 'parameter_invalid');
    assert.equal(invalid.param, 'currency');

    const customer = await strict.customers.create({ name: 'Draft owner' });
    const draft = await strict.invoices.create({ customerId: customer.id, currency: 'eur' });
    const state = await strict.invoices.void(draft.id).catch((e: unknown) => e);
    assert.ok(state instanceof BillingApiError);
    assert.equal(state.code, 'state_invalid');
    assert.equal(state.status, 409);
    assert.equal(recorder.attempts.length, 5, 'a refusal that a retry cannot fix is not retried');

    const reader = new BillingClient({
      apiKey: (await createTenantWithKey(server.db, { scopes: ['customers:read'] })).secret,
      baseUrl: server.url,
    });
    const scope = await reader.customers.create({ name: 'No' }).catch((e: unknown) => e);
    assert.ok(scope instanceof BillingApiError);
    assert.equal(scope.code, 'scope_insufficient');
    assert.equal(scope.requiredScope, 'customers:write');
  });
});
