import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { generate } from 'selfsigned';
import {
  call,
  createTenantWithKey,
  createTestDatabase,
  startTestServer,
  type ApiResponse,
} from '../helpers.ts';
import { checkNodeResponse } from '../openapi/conformance.ts';

const url = await createTestDatabase();
const plain = await startTestServer(url);
const proxied = await startTestServer(url, { trustProxy: true });
const db = plain.db;
const live = await createTenantWithKey(db, { environment: 'live' });
const test = await createTenantWithKey(db, { tenantId: live.tenantId, environment: 'test' });

// A self-signed certificate for localhost and 127.0.0.1, made for this run.
const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
  keySize: 2048,
  algorithm: 'sha256',
});
const dir = await mkdtemp(path.join(tmpdir(), 'billing-tls-'));
after(() => rm(dir, { recursive: true, force: true }));
await writeFile(path.join(dir, 'cert.pem'), pems.cert);
await writeFile(path.join(dir, 'key.pem'), pems.private, { mode: 0o600 });
const tls = await startTestServer(url, {
  tlsCertFile: path.join(dir, 'cert.pem'),
  tlsKeyFile: path.join(dir, 'key.pem'),
});

/** A request over HTTPS that trusts only this run's certificate. */
function overHttps(pathname: string, secret: string): Promise<ApiResponse> {
  const target = new URL(pathname, tls.url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      target,
      { method: 'GET', ca: pems.cert, headers: { authorization: `Bearer ${secret}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', async () => {
          const bytes = Buffer.concat(chunks);
          await checkNodeResponse('GET', target, res, bytes).catch(reject);
          const text = bytes.toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === 'string') headers.set(name, value);
          }
          resolve({ status: res.statusCode ?? 0, headers, text, body: JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const whoami = (base: string, secret: string, headers: Record<string, string> = {}) =>
  call(base, 'GET', '/v1/auth/whoami', { key: secret, headers });

function assertHttpsRequired(res: ApiResponse): void {
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.error.code, 'https_required');
  assert.equal(res.body.error.requestId, res.headers.get('request-id'));
}

describe('native TLS', () => {
  it('serves a live key over HTTPS with the server certificate', async () => {
    assert.match(tls.url, /^https:\/\//);
    const res = await overHttps('/v1/auth/whoami', live.secret);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.environment, 'live');
  });

  it('sends Strict-Transport-Security over TLS, on errors too', async () => {
    for (const res of [
      await overHttps('/v1/auth/whoami', live.secret),
      await overHttps('/v1/customers/cus_missing', live.secret),
      await overHttps('/v1/auth/whoami', 'sk_live_wrong'),
    ]) {
      assert.equal(res.headers.get('strict-transport-security'), 'max-age=31536000', res.text);
    }
  });
});

describe('live keys and plain HTTP', () => {
  it('refuses a live key when a trusted proxy says the client used http', async () => {
    assertHttpsRequired(await whoami(proxied.url, live.secret, { 'x-forwarded-proto': 'http' }));
    assertHttpsRequired(await whoami(proxied.url, live.secret, { 'x-forwarded-proto': 'HTTP' }));
    // The client claimed https itself; the proxy, which appends, saw http.
    assertHttpsRequired(
      await whoami(proxied.url, live.secret, { 'x-forwarded-proto': 'https, http' }),
    );
  });

  it('accepts a live key when a trusted proxy says https, and then sends HSTS', async () => {
    const res = await whoami(proxied.url, live.secret, { 'x-forwarded-proto': 'https' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('strict-transport-security'), 'max-age=31536000');
  });

  it('tolerates plain HTTP from a loopback peer when no trusted proxy says otherwise', async () => {
    for (const res of [
      await whoami(plain.url, live.secret),
      await whoami(proxied.url, live.secret),
      // Not trusted: the header could come from anyone.
      await whoami(plain.url, live.secret, { 'x-forwarded-proto': 'http' }),
    ]) {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('strict-transport-security'), null);
    }
    const untrusted = await whoami(plain.url, live.secret, { 'x-forwarded-proto': 'https' });
    assert.equal(untrusted.headers.get('strict-transport-security'), null);
  });

  it('lets test keys use plain HTTP', async () => {
    const res = await whoami(proxied.url, test.secret, { 'x-forwarded-proto': 'http' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.environment, 'test');
  });
});

describe('security headers', () => {
  it('marks every response as not to be sniffed, framed or cached', async () => {
    for (const res of [
      await whoami(plain.url, test.secret),
      await whoami(plain.url, 'sk_test_wrong'),
      await call(plain.url, 'GET', '/v1/nothing'),
      await call(plain.url, 'GET', '/healthz'),
    ]) {
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(
        res.headers.get('content-security-policy'),
        "default-src 'none'; frame-ancestors 'none'",
      );
      // Redundant with that policy, so not sent (README, Security).
      assert.equal(res.headers.get('x-frame-options'), null);
      assert.equal(res.headers.get('referrer-policy'), null);
      assert.equal(res.headers.get('x-powered-by'), null);
    }
  });

  it('lets the documentation page run its scripts, but not be framed', async () => {
    const res = await call(plain.url, 'GET', '/docs/');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-security-policy'), "frame-ancestors 'none'");
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  });
});

describe('no CORS', () => {
  it('answers a pre-flight without any Access-Control-Allow-* header', async () => {
    for (const pathname of ['/v1/customers', '/v1/auth/whoami', '/v1/customers/cus_1']) {
      const res = await call(plain.url, 'OPTIONS', pathname, {
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      assert.ok(res.status >= 400, `${res.status} ${res.text}`);
      assert.equal(typeof res.body.error.code, 'string');
      for (const name of res.headers.keys()) {
        assert.doesNotMatch(name, /^access-control-/, `${pathname}: ${name}`);
      }
    }
  });

  it('sends no Access-Control-Allow-Origin on a cross-origin request', async () => {
    const res = await whoami(plain.url, test.secret, { origin: 'https://evil.example' });
    assert.equal(res.status, 200);
    for (const name of res.headers.keys()) assert.doesNotMatch(name, /^access-control-/);
  });
});
