import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { call, createTenantWithKey, startTestApp } from '../helpers.ts';
import { checkNodeResponse } from '../openapi/conformance.ts';

const server = await startTestApp();
const key = await createTenantWithKey(server.db);

function assertEnvelope(
  res: { status: number; body: any; headers: Headers; text: string },
  status: number,
  code: string,
) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
  assert.equal(typeof res.body.error.message, 'string');
  assert.equal(res.body.error.requestId, res.headers.get('request-id'));
  assert.doesNotMatch(res.text, /at .*\.ts:\d+|SELECT|INSERT|stack/i, 'no internals in errors');
}

/** A raw HTTP request, for what fetch would not send. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
) {
  return new Promise<{ status: number; body: any; headers: Headers; text: string }>(
    (resolve, reject) => {
      const url = new URL(server.url);
      const req = httpRequest(
        { host: url.hostname, port: url.port, method, path, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', async () => {
            const bytes = Buffer.concat(chunks);
            await checkNodeResponse(method, new URL(path, url), res, bytes).catch(reject);
            const text = bytes.toString();
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers))
              if (typeof v === 'string') h.set(k, v);
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = undefined;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed, headers: h, text });
          });
        },
      );
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    },
  );
}

describe('the error envelope', () => {
  it('answers unknown paths and versions with route_not_found', async () => {
    for (const path of ['/v2/customers', '/v1/nothing', '/', '/v1']) {
      assertEnvelope(
        await call(server.url, 'GET', path, { key: key.secret }),
        404,
        'route_not_found',
      );
    }
  });

  it('answers every path with an empty segment or a trailing slash with route_not_found', async () => {
    const openapi = await call(server.url, 'GET', '/v1/openapi.json');
    const tried: string[] = [];
    for (const template of Object.keys(openapi.body.paths)) {
      // Each parameter empty in turn ('/v1/customers/', '/v1/invoices//pdf'), and a slash more.
      const params = template.match(/\{\w+\}/g) ?? [];
      const paths = [
        `${template.replace(/\{\w+\}/g, 'x_1')}/`,
        ...params.map((param) => template.replace(/\{\w+\}/g, (p) => (p === param ? '' : 'x_1'))),
      ];
      for (const path of paths) {
        for (const method of ['GET', 'POST', 'PATCH', 'DELETE', 'PUT']) {
          for (const secret of [key.secret, undefined]) {
            const res = await call(server.url, method, path, { key: secret });
            assertEnvelope(res, 404, 'route_not_found');
            assert.equal(res.headers.get('allow'), null, `${method} ${path}`);
            tried.push(`${method} ${path}`);
          }
        }
      }
    }
    assert.ok(tried.includes('GET /v1/customers/'));
    assert.ok(tried.includes('DELETE /v1/invoices/x_1/lines/'));
    assert.ok(tried.includes('GET /v1/invoices//pdf'));
  });

  it('answers a known path with the wrong method with method_not_allowed and Allow', async () => {
    const res = await call(server.url, 'DELETE', '/v1/customers', { key: key.secret });
    assertEnvelope(res, 405, 'method_not_allowed');
    assert.equal(res.headers.get('allow'), 'GET, POST');
    assertEnvelope(
      await call(server.url, 'PUT', '/v1/customers/cus_1', { key: key.secret }),
      405,
      'method_not_allowed',
    );
  });

  it('answers bodies that are not JSON objects with body_invalid', async () => {
    const auth = { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' };
    for (const body of [
      '{',
      '[1,2]',
      '"text"',
      '12',
      'null',
      '{"a":1}{',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{}}}',
    ]) {
      const res = await raw('POST', '/v1/customers', auth, body);
      assert.ok([400].includes(res.status), `${body} → ${res.text}`);
      assert.ok(
        ['body_invalid', 'parameter_invalid'].includes(res.body.error.code),
        `${body} → ${res.text}`,
      );
    }
    // No body is the same as {}: a required field is then named.
    const empty = await raw('POST', '/v1/api-keys', auth, '');
    assertEnvelope(empty, 400, 'parameter_missing');
    assert.equal(empty.body.error.param, 'scopes');
    const none = await raw('POST', '/v1/api-keys', { authorization: auth.authorization });
    assertEnvelope(none, 400, 'parameter_missing');
  });

  it('answers non-JSON bodies with content_type_unsupported', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ]) {
      const res = await raw(
        'POST',
        '/v1/customers',
        { authorization: `Bearer ${key.secret}`, 'content-type': type },
        'name=x',
      );
      assertEnvelope(res, 415, 'content_type_unsupported');
    }
  });

  it('answers bodies over 1 MiB with body_too_large', async () => {
    const body = JSON.stringify({ name: 'x', description: 'y'.repeat(1024 * 1024) });
    const res = await raw(
      'POST',
      '/v1/customers',
      { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body,
    );
    assertEnvelope(res, 413, 'body_too_large');
  });

  it('answers headers over 16 KiB with headers_too_large and the security headers of every answer', async () => {
    const res = await raw('GET', '/v1/customers', {
      authorization: `Bearer ${key.secret}`,
      'x-padding': 'a'.repeat(20 * 1024),
    });
    assertEnvelope(res, 431, 'headers_too_large');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(
      res.headers.get('content-security-policy'),
      "default-src 'none'; frame-ancestors 'none'",
    );
    const openapi = await call(server.url, 'GET', '/v1/openapi.json');
    for (const [path, method] of [
      ['/v1/customers', 'post'],
      ['/v1/customers', 'get'],
      ['/v1/invoices/{id}', 'delete'],
    ] as const) {
      const responses = openapi.body.paths[path][method].responses;
      for (const status of ['408', '431']) {
        assert.ok(responses[status], `${method} ${path} documents ${status}`);
      }
    }
  });

  it('puts a Request-Id on every response, success or error', async () => {
    const ok = await call(server.url, 'GET', '/v1/auth/whoami', { key: key.secret });
    assert.match(ok.headers.get('request-id') ?? '', /^req_/);
    const health = await call(server.url, 'GET', '/healthz');
    assert.match(health.headers.get('request-id') ?? '', /^req_/);
    const a = await call(server.url, 'GET', '/v1/customers/x');
    const b = await call(server.url, 'GET', '/v1/customers/x');
    assert.notEqual(a.body.error.requestId, b.body.error.requestId);
  });

  it('ignores a client-sent Request-Id', async () => {
    const res = await call(server.url, 'GET', '/nope', { headers: { 'request-id': 'evil' } });
    assert.notEqual(res.headers.get('request-id'), 'evil');
  });
});

describe('operations', () => {
  it('serves health, readiness and metrics without a key', async () => {
    assert.equal((await call(server.url, 'GET', '/healthz')).status, 200);
    assert.deepEqual((await call(server.url, 'GET', '/readyz')).body, { status: 'ready' });
    const metrics = await call(server.url, 'GET', '/metrics');
    assert.equal(metrics.status, 200);
    assert.match(metrics.text, /billing_http_requests_total/);
    // Requests are counted in batches; a scrape sees every one finished before it.
    const healthz = async () => {
      const text = (await call(server.url, 'GET', '/metrics')).text;
      const line = /billing_http_requests_total\{[^}]*route="\/healthz"[^}]*\} (\d+)/.exec(text);
      return Number(line?.[1] ?? 0);
    };
    const before = await healthz();
    for (let i = 0; i < 3; i++) await call(server.url, 'GET', '/healthz');
    assert.equal(await healthz(), before + 3);
  });

  it('serves the OpenAPI 3.1 document generated from the route schemas, and the docs page', async () => {
    const res = await call(server.url, 'GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    const create = res.body.paths['/v1/customers'].post;
    const body = create.requestBody.content['application/json'].schema;
    assert.equal(body.$ref, '#/components/schemas/CustomerCreate');
    assert.ok(res.body.components.schemas.CustomerCreate.properties.email);
    assert.ok(res.body.paths['/v1/customers'].get.parameters.some((p: any) => p.name === 'limit'));
    assert.ok(res.body.paths['/v1/auth/whoami'].get);
    // A write without a body is read as {}: the body is required only where a field is.
    assert.equal(res.body.paths['/v1/invoices'].post.requestBody.required, true);
    assert.equal(create.requestBody.required, false, 'every field of a customer is optional');
    assert.equal(res.body.paths['/v1/invoices/{id}'].delete.requestBody.required, false);
    assert.equal(res.body.paths['/v1/invoices/{id}/issue'].post.requestBody.required, false);
    const docs = await fetch(`${server.url}/docs/`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /<html/i);
  });
});
