import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateSecret } from '../../src/keys/secret.ts';
import {
  call,
  createTenantWithKey,
  createTestDatabase,
  drivenClock,
  revokeKey,
  rotateKey,
  startTestServer,
  waitFor,
  waitUntil,
} from '../helpers.ts';

const logLines: string[] = [];
const url = await createTestDatabase();
const server = await startTestServer(
  url,
  { logLevel: 'info' },
  { write: (l) => void logLines.push(l) },
);
const second = await startTestServer(url);
const db = server.db;

describe('whoami', () => {
  it('returns tenant, environment and scopes for keys of both environments', async () => {
    for (const environment of ['test', 'live'] as const) {
      for (const scopes of [
        ['customers:read'],
        ['invoices:read', 'invoices:write'],
        ['keys:read'],
      ]) {
        const key = await createTenantWithKey(db, { environment, scopes });
        const res = await call(server.url, 'GET', '/v1/auth/whoami', { key: key.secret });
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { tenantId: key.tenantId, environment, scopes });
        assert.match(res.headers.get('request-id') ?? '', /^req_/);
      }
    }
  });

  it('accepts the Bearer scheme in any case', async () => {
    const key = await createTenantWithKey(db);
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const res = await call(server.url, 'GET', '/v1/auth/whoami', {
        headers: { authorization: `${scheme} ${key.secret}` },
      });
      assert.equal(res.status, 200);
    }
  });

  it('never authenticates a key as another tenant or environment', async () => {
    const a = await createTenantWithKey(db, { environment: 'test' });
    const b = await createTenantWithKey(db, { environment: 'live', tenantId: a.tenantId });
    const c = await createTenantWithKey(db);
    const who = async (k: string) =>
      (await call(server.url, 'GET', '/v1/auth/whoami', { key: k })).body;
    assert.deepEqual(
      [(await who(a.secret)).tenantId, (await who(a.secret)).environment],
      [a.tenantId, 'test'],
    );
    assert.deepEqual(
      [(await who(b.secret)).tenantId, (await who(b.secret)).environment],
      [a.tenantId, 'live'],
    );
    assert.equal((await who(c.secret)).tenantId, c.tenantId);
    assert.notEqual(c.tenantId, a.tenantId);
  });
});

describe('authentication errors', () => {
  const expectError = async (headers: Record<string, string>, status: number, code: string) => {
    const res = await call(server.url, 'GET', '/v1/auth/whoami', { headers });
    assert.equal(res.status, status, res.text);
    assert.equal(res.body.error.code, code);
    assert.equal(res.body.error.requestId, res.headers.get('request-id'));
    assert.equal(typeof res.body.error.message, 'string');
  };

  it('answers api_key_missing without a Bearer header', async () => {
    await expectError({}, 401, 'api_key_missing');
    await expectError({ authorization: 'Basic dXNlcjpwYXNz' }, 401, 'api_key_missing');
    await expectError({ authorization: 'Bearer' }, 401, 'api_key_missing');
  });

  it('asks for a key on every route of the OpenAPI document, HEAD included, and on no operational one', async () => {
    const doc = (await call(server.url, 'GET', '/v1/openapi.json')).body;
    const sample = (path: string) => path.replace(/\{[^}]+\}/g, 'x_1');
    let checked = 0;
    for (const [path, operations] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const method of Object.keys(operations)) {
        // The operational routes say they need no key (`security: []`), checked below.
        if (operations[method].security?.length === 0) continue;
        const verbs = method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()];
        for (const verb of verbs) {
          const res = await call(server.url, verb, sample(path));
          assert.equal(res.status, 401, `${verb} ${path}: ${res.status}`);
          if (verb !== 'HEAD') assert.equal(res.body.error.code, 'api_key_missing');
          checked++;
        }
      }
    }
    assert.ok(checked > 40, `${checked} operations`);
    const open = Object.entries<Record<string, any>>(doc.paths)
      .filter(([, operations]) => operations.get?.security?.length === 0)
      .map(([path]) => path);
    assert.deepEqual(open.sort(), ['/healthz', '/metrics', '/readyz', '/v1/openapi.json']);
    for (const path of [...open, '/docs']) {
      assert.notEqual((await call(server.url, 'GET', path)).status, 401, path);
    }
  });

  it('answers api_key_invalid for unknown, malformed or mistyped keys', async () => {
    const key = await createTenantWithKey(db);
    const flipped =
      key.secret.slice(0, 12) + (key.secret[12] === 'a' ? 'b' : 'a') + key.secret.slice(13);
    for (const secret of [
      'nope',
      'sk_test_short',
      flipped,
      key.secret.slice(0, -1),
      generateSecret('test'),
    ]) {
      await expectError({ authorization: `Bearer ${secret}` }, 401, 'api_key_invalid');
    }
  });

  it('answers api_key_revoked for a revoked key', async () => {
    const key = await createTenantWithKey(db);
    await revokeKey(db, key);
    await expectError({ authorization: `Bearer ${key.secret}` }, 401, 'api_key_revoked');
  });

  it('makes one database look-up for a key that many requests present at once', async () => {
    // The server's clock stands still: the key's cache entry cannot expire during the test.
    const timed = await startTestServer(url, {}, undefined, drivenClock());
    const key = await createTenantWithKey(db);
    const unknown = generateSecret('test');
    const before = timed.verifier.lookups;
    const answers = await Promise.all(
      [key.secret, unknown].flatMap((secret) =>
        Array.from({ length: 16 }, () =>
          call(timed.url, 'GET', '/v1/auth/whoami', { key: secret }),
        ),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [...Array(16).fill(200), ...Array(16).fill(401)],
    );
    assert.equal(timed.verifier.lookups - before, 2, 'one look-up per key, shared');
  });

  it('refuses a mistyped key without a database look-up', async () => {
    const key = await createTenantWithKey(db);
    const before = server.verifier.lookups;
    const typo = key.secret.slice(0, -3) + (key.secret.endsWith('AAA') ? 'BBB' : 'AAA');
    await expectError({ authorization: `Bearer ${typo}` }, 401, 'api_key_invalid');
    assert.equal(server.verifier.lookups, before);
  });
});

describe('rotation and revocation', () => {
  it('keeps both keys working after rotation and refuses the revoked one within 2 s on every instance', async () => {
    const old = await createTenantWithKey(db, { scopes: ['customers:read'] });
    // Warm both instances' caches with the old key.
    for (const base of [server.url, second.url]) {
      assert.equal((await call(base, 'GET', '/v1/auth/whoami', { key: old.secret })).status, 200);
    }
    const fresh = await rotateKey(db, old, {});
    assert.deepEqual(fresh.scopes, ['customers:read']);
    for (const base of [server.url, second.url]) {
      assert.equal((await call(base, 'GET', '/v1/auth/whoami', { key: old.secret })).status, 200);
      assert.equal((await call(base, 'GET', '/v1/auth/whoami', { key: fresh.secret })).status, 200);
    }
    await revokeKey(db, old);
    const revokedAt = Date.now();
    for (const base of [server.url, second.url]) {
      let status = 200;
      await waitUntil(async () => {
        status = (await call(base, 'GET', '/v1/auth/whoami', { key: old.secret })).status;
        return status !== 200;
      }, 3000);
      assert.equal(status, 401);
      assert.ok(Date.now() - revokedAt < 2000, `refused after ${Date.now() - revokedAt} ms`);
      assert.equal((await call(base, 'GET', '/v1/auth/whoami', { key: fresh.secret })).status, 200);
    }
  });

  it('stops the old key when its expiry after rotation has passed', async () => {
    // Expiry is judged by the server's clock, and the rotation dates it by the same one.
    const clock = drivenClock();
    const timed = await startTestServer(url, {}, undefined, clock);
    const old = await createTenantWithKey(db);
    await call(timed.url, 'GET', '/v1/auth/whoami', { key: old.secret });
    const fresh = await rotateKey(db, old, { expireOldInSeconds: 1 }, clock);
    clock.advance(900);
    assert.equal(
      (await call(timed.url, 'GET', '/v1/auth/whoami', { key: old.secret })).status,
      200,
    );
    clock.advance(400);
    const res = await call(timed.url, 'GET', '/v1/auth/whoami', { key: old.secret });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'api_key_revoked');
    assert.equal(
      (await call(timed.url, 'GET', '/v1/auth/whoami', { key: fresh.secret })).status,
      200,
    );
  });
});

describe('secrets', () => {
  it('stores only a hash of each secret', async () => {
    const key = await createTenantWithKey(db);
    const { rows } = await db.query('SELECT row_to_json(k)::text AS row FROM api_keys k');
    assert.ok(rows.length > 0);
    const body = key.secret.slice(8);
    for (const { row } of rows) {
      assert.ok(!row.includes(body), 'a secret is stored in clear');
    }
  });

  it('never logs a key or secret', async () => {
    const key = await createTenantWithKey(db);
    const answers = [
      await call(server.url, 'GET', '/v1/auth/whoami', { key: key.secret }),
      await call(server.url, 'GET', '/v1/auth/whoami', { key: key.secret.slice(0, -2) }),
    ];
    const lineOf = (res: (typeof answers)[number]) =>
      logLines.find(
        (l) => l.includes('"request"') && l.includes(`"${res.headers.get('request-id')}"`),
      );
    // Each request's line is written after its reply.
    await waitFor(() => answers.every(lineOf), 'the request log lines', 2000);
    assert.ok(lineOf(answers[0]!)!.includes(key.tenantId), 'the log names the tenant');
    for (const line of logLines) assert.ok(!line.includes('sk_test_'), `secret in log: ${line}`);
  });
});

describe('request log', () => {
  it('writes one line per request: route pattern, status and duration, matched or not', async () => {
    const key = await createTenantWithKey(db);
    // Each call with the time it took as the client saw it: the logged duration lies within.
    const timed = async (path: string, secret?: string) => {
      const started = performance.now();
      const res = await call(server.url, 'GET', path, secret ? { key: secret } : {});
      return { res, tookMs: performance.now() - started };
    };
    const lineOf = ({ res, tookMs }: Awaited<ReturnType<typeof timed>>) => {
      const id = res.headers.get('request-id');
      const lines = logLines.filter(
        (l) => l.includes(`"requestId":"${id}"`) && l.includes('"msg":"request"'),
      );
      assert.equal(lines.length, 1, `one access line for ${id}`);
      const line = JSON.parse(lines[0]!);
      assert.ok(
        line.durationMs >= 0 && line.durationMs <= tookMs + 0.1,
        `durationMs ${line.durationMs} of a request that took ${tookMs} ms`,
      );
      return line;
    };
    const ok = lineOf(await timed('/v1/auth/whoami', key.secret));
    const denied = lineOf(await timed('/v1/auth/whoami', 'sk_test_nope'));
    const missing = lineOf(await timed('/v1/no-such-thing'));
    assert.deepEqual(
      [ok.route, ok.status, ok.tenantId, ok.keyId],
      ['/v1/auth/whoami', 200, key.tenantId, key.keyId],
    );
    assert.deepEqual(
      [denied.route, denied.status, 'tenantId' in denied],
      ['/v1/auth/whoami', 401, false],
    );
    assert.deepEqual([missing.route, missing.status], [null, 404]);
  });
});
