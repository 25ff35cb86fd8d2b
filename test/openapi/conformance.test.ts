import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkResponse, registerApiOrigin } from './conformance.ts';

// The checker itself: what it refuses, so that a suite in which it finds nothing means
// something. The responses here are made up; those of a real server are checked everywhere else.
const origin = 'http://127.0.0.1:9';
registerApiOrigin(origin);

const rateLimited = {
  'request-id': 'req_1',
  ratelimit: '"default";r=9;t=1',
  'ratelimit-policy': '"default";q=10;w=1',
};

function response(
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = rateLimited,
) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    method,
    url: `${origin}${path}`,
    status,
    headers: new Headers({ 'content-type': 'application/json; charset=utf-8', ...headers }),
    body: new TextEncoder().encode(text),
  };
}

const whoami = { tenantId: 'ten_1', environment: 'test', scopes: ['customers:read'] };
const envelope = (code: string) => ({ error: { code, message: 'm', requestId: 'req_1' } });

async function refusal(received: ReturnType<typeof response>): Promise<string> {
  const error = await checkResponse(received).then(
    () => undefined,
    (e: Error) => e,
  );
  assert.ok(error, `${received.method} ${received.url} ${received.status} was accepted`);
  return error.message;
}

describe('the OpenAPI conformance check of the test suite', () => {
  it('accepts a response as documented', async () => {
    await checkResponse(response('GET', '/v1/auth/whoami', 200, whoami));
    await checkResponse(response('GET', '/v1/nothing', 404, envelope('route_not_found')));
  });

  it('refuses an undocumented status, a body off its schema and an unknown enum value', async () => {
    assert.match(await refusal(response('GET', '/v1/auth/whoami', 201, whoami)), /not documented/);
    assert.match(
      await refusal(response('GET', '/v1/auth/whoami', 200, { ...whoami, scopes: ['all'] })),
      /does not match/,
    );
    assert.match(
      await refusal(response('GET', '/v1/customers/cus_1', 404, envelope('not_a_code'))),
      /does not match/,
    );
  });

  it('refuses a missing required header, a wrong content type and a 405 without Allow', async () => {
    const { ratelimit: _dropped, ...withoutRateLimit } = rateLimited;
    assert.match(
      await refusal(response('GET', '/v1/auth/whoami', 200, whoami, withoutRateLimit)),
      /RateLimit is missing/,
    );
    const { 'request-id': _none, ...withoutRequestId } = rateLimited;
    assert.match(
      await refusal(response('GET', '/v1/auth/whoami', 200, whoami, withoutRequestId)),
      /Request-Id is missing/,
    );
    assert.match(
      await refusal(response('DELETE', '/v1/customers', 405, envelope('method_not_allowed'))),
      /Allow/,
    );
    const xml = response('GET', '/v1/auth/whoami', 200, whoami);
    xml.headers.set('content-type', 'application/xml');
    assert.match(await refusal(xml), /content type/);
  });

  it('refuses a PDF without its file name', async () => {
    const pdf = response('GET', '/v1/invoices/inv_1/pdf', 200, '%PDF-1.7');
    pdf.headers.set('content-type', 'application/pdf');
    assert.match(await refusal(pdf), /Content-Disposition is missing/);
  });
});
