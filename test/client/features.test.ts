import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  BillingApiError,
  BillingClient,
  ListLimitExceededError,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type RequestEvent,
  type ResponseEvent,
  type WebhookPayload,
} from '../../clients/typescript/src/index.ts';
import { SCOPES } from '../../src/keys/scopes.ts';
import { createTenantWithKey, createTestDatabase, startTestServer } from '../helpers.ts';

// What users of mature API clients rely on, against the real server: each result's Request-Id
// and Idempotent-Replayed, retries of a keyed write through a 503 (a proxy in front of the
// server answers 503 first), no retry of a write without a key, hooks on every attempt, test
// webhooks signed as the server signs them, and toArray()'s cap.

const url = await createTestDatabase();
const server = await startTestServer(url, { runWorker: false });
const apiKey = (await createTenantWithKey(server.db, { scopes: [...SCOPES] })).secret;
const client = new BillingClient({ apiKey, baseUrl: server.url, baseDelayMs: 10 });

/**
 * A proxy in front of the server that answers the first `failures` requests with 503 (no
 * Retry-After, as a load balancer might) and forwards the rest; it records each request's
 * method and Idempotency-Key.
 */
async function flakyProxy(failures: number) {
  const seen: { method: string; key: string | undefined; status: number }[] = [];
  const proxy = http.createServer(async (request, reply) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const key = request.headers['idempotency-key'] as string | undefined;
    if (seen.length < failures) {
      seen.push({ method: request.method!, key, status: 503 });
      reply.writeHead(503, { 'content-type': 'text/html' }).end('<h1>503 Service Unavailable</h1>');
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && name !== 'host' && name !== 'connection')
        headers[name] = value;
    }
    const answer = await fetch(server.url + request.url, {
      method: request.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    seen.push({ method: request.method!, key, status: answer.status });
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== 'content-encoding' && name !== 'transfer-encoding') out[name] = value;
    });
    reply.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
  const { port } = proxy.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen };
}

describe('the client’s response metadata', () => {
  it('gives every result its Request-Id, and Idempotent-Replayed: true on a replay', async () => {
    const key = `replay-${crypto.randomUUID()}`;
    const created = await client.customers.create(
      { name: 'Replayed Ltd' },
      { idempotencyKey: key },
    );
    assert.match(created.lastResponse.requestId ?? '', /^req_/);
    assert.equal(created.lastResponse.status, 201);
    assert.equal(created.lastResponse.idempotentReplayed, false);
    assert.equal(created.lastResponse.idempotencyKey, key);
    assert.equal(created.lastResponse.attempts, 1);
    // The metadata is not part of the resource: it neither serialises nor compares.
    assert.equal('lastResponse' in JSON.parse(JSON.stringify(created)), false);
    assert.deepEqual(Object.keys(created), Object.keys(await client.customers.get(created.id)));

    const replayed = await client.customers.create(
      { name: 'Replayed Ltd' },
      { idempotencyKey: key },
    );
    assert.equal(replayed.id, created.id);
    assert.equal(replayed.lastResponse.idempotentReplayed, true);
    assert.match(replayed.lastResponse.requestId ?? '', /^req_/);

    const read = await client.customers.get(created.id);
    assert.equal(read.lastResponse.idempotencyKey, null);
    const page = await client.customers.list({ limit: 1 });
    assert.match(page.lastResponse.requestId ?? '', /^req_/);
  });
});

describe('the client’s retries through a failing proxy', () => {
  it('retries a keyed write after 503 with the same key, and the server does it once', async () => {
    const proxy = await flakyProxy(2);
    const retrying = new BillingClient({ apiKey, baseUrl: proxy.url, baseDelayMs: 10 });
    const email = `retried-${crypto.randomUUID()}@example.com`;
    const customer = await retrying.customers.create({ name: 'Retried GmbH', email });
    assert.deepEqual(
      proxy.seen.map((s) => s.status),
      [503, 503, 201],
    );
    assert.equal(new Set(proxy.seen.map((s) => s.key)).size, 1);
    assert.ok(proxy.seen[0]!.key);
    assert.equal(customer.lastResponse.attempts, 3);
    const listed = await client.customers.list({ email });
    assert.deepEqual(
      listed.data.map((c) => c.id),
      [customer.id],
    );
  });

  it('retries a read after 503', async () => {
    const proxy = await flakyProxy(1);
    const retrying = new BillingClient({ apiKey, baseUrl: proxy.url, baseDelayMs: 10 });
    const me = await retrying.whoami();
    assert.equal(me.environment, 'test');
    assert.deepEqual(
      proxy.seen.map((s) => [s.method, s.status]),
      [
        ['GET', 503],
        ['GET', 200],
      ],
    );
  });

  it('never retries a write sent without an Idempotency-Key', async () => {
    const proxy = await flakyProxy(1);
    const retrying = new BillingClient({ apiKey, baseUrl: proxy.url, baseDelayMs: 10 });
    const error = await retrying.customers
      .create({ name: 'Keyless' }, { idempotencyKey: false })
      .catch((e: unknown) => e);
    assert.ok(error instanceof BillingApiError);
    assert.equal(error.status, 503);
    assert.deepEqual(proxy.seen, [{ method: 'POST', key: undefined, status: 503 }]);
    // Through the healthy server, the keyless write goes through once, without a key.
    const created = await client.customers.create({ name: 'Keyless' }, { idempotencyKey: false });
    assert.equal(created.lastResponse.idempotencyKey, null);
  });
});

describe('the client’s hooks', () => {
  it('calls onRequest and onResponse for every attempt, retries included', async () => {
    const proxy = await flakyProxy(1);
    const requests: RequestEvent[] = [];
    const responses: ResponseEvent[] = [];
    const hooked = new BillingClient({
      apiKey,
      baseUrl: proxy.url,
      baseDelayMs: 10,
      onRequest: (event) => requests.push(event),
      onResponse: (event) => responses.push(event),
    });
    const customer = await hooked.customers.create({ name: 'Hooked' });
    assert.deepEqual(
      requests.map((r) => [r.method, r.attempt, r.idempotencyKey]),
      [
        ['POST', 0, customer.lastResponse.idempotencyKey],
        ['POST', 1, customer.lastResponse.idempotencyKey],
      ],
    );
    assert.equal(requests[0]!.url, `${proxy.url}/v1/customers`);
    assert.deepEqual(
      responses.map((r) => [r.status, r.willRetry]),
      [
        [503, true],
        [201, false],
      ],
    );
    assert.equal(responses[1]!.requestId, customer.lastResponse.requestId);
    assert.ok(responses.every((r) => r.elapsedMs >= 0));

    const missing = await hooked.customers.get('cus_missing').catch((e: unknown) => e);
    assert.ok(missing instanceof BillingApiError);
    assert.deepEqual(
      responses.slice(2).map((r) => [r.status, r.willRetry]),
      [[404, false]],
    );
  });
});

describe('signWebhook', () => {
  const secret = `whsec_${Buffer.from('a test endpoint secret, 32 bytes').toString('base64')}`;
  const payload: WebhookPayload = {
    type: 'invoice.paid',
    timestamp: '2026-03-01T10:00:00.000Z',
    data: { object: { id: 'inv_test', object: 'invoice' } },
  } as unknown as WebhookPayload;

  it('signs a delivery that the client’s verifyWebhook and the server’s library accept', async () => {
    const signed = await signWebhook(payload, secret);
    assert.deepEqual(await verifyWebhook(signed.body, signed.headers, secret), payload);
    // The standardwebhooks library the server signs its deliveries with.
    assert.deepEqual(new Webhook(secret).verify(signed.body, signed.headers), payload);
    assert.match(signed.headers['webhook-id'], /^evt_test_/);
  });

  it('takes an id and a time, and a signature with another secret fails', async () => {
    const at = new Date('2026-03-01T10:00:00Z');
    const signed = await signWebhook(JSON.stringify(payload), secret, {
      id: 'evt_1',
      timestamp: at,
    });
    assert.equal(signed.headers['webhook-id'], 'evt_1');
    assert.equal(signed.headers['webhook-timestamp'], String(at.getTime() / 1000));
    await verifyWebhook(signed.body, signed.headers, secret, { now: at });
    await assert.rejects(
      verifyWebhook(signed.body, signed.headers, secret),
      WebhookVerificationError,
      'a timestamp far from now',
    );
    const other = `whsec_${Buffer.from('another secret of the same length').toString('base64')}`;
    await assert.rejects(
      verifyWebhook(signed.body, signed.headers, other, { now: at }),
      /no signature matches/,
    );
  });
});

describe('List.toArray', () => {
  it('collects up to its limit and refuses a longer list instead of cutting it short', async () => {
    const email = `capped-${crypto.randomUUID()}@example.com`;
    for (let i = 0; i < 5; i++) await client.customers.create({ name: `Capped ${i}`, email });
    const pagesFetched: string[] = [];
    const counting = new BillingClient({
      apiKey,
      baseUrl: server.url,
      onRequest: (event) => pagesFetched.push(event.url),
    });
    assert.equal((await counting.customers.list({ email, limit: 2 }).toArray()).length, 5);
    assert.equal(
      (await counting.customers.list({ email, limit: 2 }).toArray({ limit: 5 })).length,
      5,
    );
    pagesFetched.length = 0;
    const refused = await counting.customers
      .list({ email, limit: 2 })
      .toArray({ limit: 3 })
      .catch((e: unknown) => e);
    assert.ok(refused instanceof ListLimitExceededError);
    assert.equal(refused.limit, 3);
    assert.equal(pagesFetched.length, 2, 'no page after the one that went past the limit');
    await assert.rejects(client.customers.list().toArray({ limit: 0 }), RangeError);
  });
});

describe('the schemes and languages the types list', () => {
  it('refuses a scheme outside the EAS list with the field’s description, and a language without a catalogue as before', async () => {
    const described =
      'Invalid electronicAddress.scheme: A Peppol EAS code (e.g. 0088 GLN, 9930 German VAT number, 0208 Belgian enterprise number), or EM for an e-mail address (CII only: Peppol does not route EM).';
    for (const scheme of ['XX', '0001', 'em']) {
      const error = await client.customers
        .create({ name: 'Bad scheme', electronicAddress: { scheme: scheme as 'EM', value: 'x' } })
        .catch((e: unknown) => e);
      assert.ok(error instanceof BillingApiError, scheme);
      assert.equal(error.code, 'parameter_invalid');
      assert.equal(error.param, 'electronicAddress.scheme');
      assert.equal(error.message, described);
    }
    const language = await client.customers
      .create({ name: 'Bad language', locale: 'ja' as 'de' })
      .catch((e: unknown) => e);
    assert.ok(language instanceof BillingApiError);
    assert.equal(language.param, 'locale');
    assert.match(language.message, /^No catalogue for 'ja'; the languages are en, de, fr/);
    const ok = await client.customers.create({
      name: 'Good',
      locale: 'fr-BE',
      electronicAddress: { scheme: '0208', value: '0123456749' },
    });
    assert.equal(ok.locale, 'fr-BE');
    assert.equal(ok.electronicAddress?.scheme, '0208');
  });
});
