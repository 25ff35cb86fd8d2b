import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BillingApiError, BillingClient } from '../../clients/typescript/src/index.ts';

// The client's retry rules on answers a real server gives only under load or in a race (409
// idempotency_key_in_use, 503): scripted answers, so each rule is seen every time. The flow
// test (./flow.test.ts) shows the same client against the real server.

interface Attempt {
  key: string | undefined;
  at: number;
}

const envelope = (code: string) =>
  JSON.stringify({ error: { code, message: code, requestId: 'req_test' } });

/** A fetch that answers from a script, one entry per attempt; `network` throws instead. */
function scripted(answers: (Response | 'network')[]) {
  const attempts: Attempt[] = [];
  const fetcher = async (_input: RequestInfo | URL, init?: RequestInit) => {
    const headers = init?.headers as Record<string, string>;
    attempts.push({ key: headers['idempotency-key'], at: Date.now() });
    const answer = answers.shift();
    if (!answer) throw new Error('the script ran out');
    if (answer === 'network') throw new TypeError('fetch failed');
    return answer;
  };
  return { attempts, fetch: fetcher };
}

const json = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });

const customer = JSON.stringify({ id: 'cus_1', object: 'customer' });

function clientWith(fetcher: typeof fetch, maxRetries = 3) {
  return new BillingClient({
    apiKey: 'sk_test_x',
    baseUrl: 'http://billing.test',
    baseDelayMs: 5,
    maxDelayMs: 2_000,
    maxRetries,
    fetch: fetcher,
  });
}

describe('the client’s retries', () => {
  it('retries 409 idempotency_key_in_use with the same key until the first attempt is done', async () => {
    const script = scripted([
      json(409, envelope('idempotency_key_in_use')),
      json(409, envelope('idempotency_key_in_use')),
      json(201, customer, { 'idempotent-replayed': 'true' }),
    ]);
    const created = await clientWith(script.fetch).customers.create({ name: 'A' });
    assert.equal(created.id, 'cus_1');
    assert.equal(script.attempts.length, 3);
    assert.equal(new Set(script.attempts.map((a) => a.key)).size, 1);
  });

  it('waits as long as Retry-After says on 503 and 429', async () => {
    const script = scripted([
      json(503, envelope('service_unavailable'), { 'retry-after': '1' }),
      json(429, envelope('rate_limited'), { 'retry-after': '1' }),
      json(201, customer),
    ]);
    await clientWith(script.fetch).customers.create({ name: 'A' });
    const [first, second, third] = script.attempts;
    assert.ok(second!.at - first!.at >= 990, `${second!.at - first!.at} ms`);
    assert.ok(third!.at - second!.at >= 990, `${third!.at - second!.at} ms`);
  });

  it('gives up when Retry-After asks for longer than it waits, and after its last retry', async () => {
    const long = scripted([json(503, envelope('service_unavailable'), { 'retry-after': '3600' })]);
    const error = await clientWith(long.fetch)
      .whoami()
      .catch((e: unknown) => e);
    assert.ok(error instanceof BillingApiError);
    assert.equal(error.code, 'service_unavailable');
    assert.equal(error.retryAfter, 3600);
    assert.equal(long.attempts.length, 1);

    const down = scripted(['network', 'network', 'network']);
    await assert.rejects(clientWith(down.fetch, 2).customers.create({}), /fetch failed/);
    assert.equal(down.attempts.length, 3);
    assert.equal(new Set(down.attempts.map((a) => a.key)).size, 1);
  });

  it('backs off exponentially with jitter after network errors', async () => {
    const script = scripted(['network', 'network', 'network', json(200, customer)]);
    await clientWith(script.fetch).customers.get('cus_1');
    const gaps = script.attempts.slice(1).map((a, i) => a.at - script.attempts[i]!.at);
    // 5 ms, 10 ms, 20 ms steps, each between half and all of its step (timers may run late).
    assert.ok(gaps[0]! >= 2 && gaps[1]! >= 5 && gaps[2]! >= 10, gaps.join(', '));
    assert.equal(script.attempts[0]!.key, undefined, 'reads carry no Idempotency-Key');
  });

  it('does not retry an answer a retry cannot change, nor a cancelled request', async () => {
    const script = scripted([json(422, envelope('idempotency_key_reused'))]);
    await assert.rejects(clientWith(script.fetch).customers.create({}), BillingApiError);
    assert.equal(script.attempts.length, 1);

    const html = scripted([
      new Response('<html>bad gateway</html>', { status: 502 }),
      new Response('<html>bad gateway</html>', { status: 502 }),
    ]);
    const error = await clientWith(html.fetch, 1)
      .whoami()
      .catch((e: unknown) => e);
    assert.ok(error instanceof BillingApiError);
    assert.equal(error.code, 'unexpected_response');
    assert.equal(error.status, 502);
    assert.equal(html.attempts.length, 2, 'a 502 is retried until the last retry');

    const controller = new AbortController();
    const cancelled = scripted(['network', 'network']);
    const pending = clientWith(cancelled.fetch).customers.get('cus_1', {
      signal: controller.signal,
    });
    controller.abort(new Error('cancelled by the caller'));
    await assert.rejects(pending, /cancelled by the caller/);
    assert.equal(cancelled.attempts.length, 1);
  });

  it('retries 500, 502, 503 and 504 for a keyed write, with the same key', async () => {
    const script = scripted([
      json(500, envelope('internal_error')),
      new Response('bad gateway', { status: 502 }),
      json(503, envelope('service_unavailable')),
      new Response('gateway timeout', { status: 504 }),
      json(201, customer),
    ]);
    const created = await clientWith(script.fetch, 4).customers.create({ name: 'A' });
    assert.equal(created.lastResponse.attempts, 5);
    assert.equal(new Set(script.attempts.map((a) => a.key)).size, 1);
  });

  it('sends a write with idempotencyKey: false once, whatever happens to it', async () => {
    for (const answer of [
      'network' as const,
      json(500, envelope('internal_error')),
      json(503, envelope('service_unavailable')),
    ]) {
      const script = scripted([answer, json(201, customer)]);
      await assert.rejects(
        clientWith(script.fetch).customers.create({ name: 'A' }, { idempotencyKey: false }),
      );
      assert.equal(script.attempts.length, 1);
      assert.equal(script.attempts[0]!.key, undefined);
    }
    // 429 is refused before any work is done: retried even without a key.
    const limited = scripted([json(429, envelope('rate_limited')), json(201, customer)]);
    await clientWith(limited.fetch).customers.create({ name: 'A' }, { idempotencyKey: false });
    assert.equal(limited.attempts.length, 2);
  });
});
