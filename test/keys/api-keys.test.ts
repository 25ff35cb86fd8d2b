import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  call,
  client,
  createTenantWithKey,
  createTestDatabase,
  drivenClock,
  startTestServer,
  waitUntil,
} from '../helpers.ts';

const url = await createTestDatabase();
const first = await startTestServer(url);
const second = await startTestServer(url);
const db = first.db;
const ALL = [
  'customers:read',
  'customers:write',
  'invoices:read',
  'invoices:write',
  'keys:read',
  'keys:write',
];

const whoamiStatus = async (base: string, secret: string) =>
  (await call(base, 'GET', '/v1/auth/whoami', { key: secret })).status;

describe('/v1/api-keys', () => {
  it('runs the whole rotation procedure over HTTP across two instances', async () => {
    const admin = await createTenantWithKey(db, { scopes: ALL });
    const api = client(first.url, admin.secret);
    const created = await api.post('/v1/api-keys', {
      name: 'billing job',
      scopes: ['invoices:read', 'invoices:write'],
    });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.secret, /^sk_test_[0-9A-Za-z]{38}$/);
    assert.deepEqual(created.body.scopes, ['invoices:read', 'invoices:write']);
    const old = created.body;
    for (const base of [first.url, second.url])
      assert.equal(await whoamiStatus(base, old.secret), 200);

    const rotated = await api.post(`/v1/api-keys/${old.id}/rotate`);
    assert.equal(rotated.status, 201, rotated.text);
    assert.deepEqual(rotated.body.scopes, old.scopes);
    assert.equal(rotated.body.rotatedFrom, old.id);
    for (const base of [first.url, second.url]) {
      assert.equal(await whoamiStatus(base, old.secret), 200);
      assert.equal(await whoamiStatus(base, rotated.body.secret), 200);
    }

    const revoked = await client(second.url, admin.secret).post(`/v1/api-keys/${old.id}/revoke`);
    assert.equal(revoked.status, 200, revoked.text);
    assert.ok(revoked.body.revokedAt);
    const at = Date.now();
    for (const base of [first.url, second.url]) {
      let status = 200;
      await waitUntil(async () => (status = await whoamiStatus(base, old.secret)) !== 200, 3000);
      assert.equal(status, 401);
      assert.ok(Date.now() - at < 2000, `old key refused after ${Date.now() - at} ms`);
      assert.equal(await whoamiStatus(base, rotated.body.secret), 200);
    }
    const events = await db.query(
      `SELECT type, data FROM events WHERE tenant_id = $1 AND type LIKE 'api_key.%' ORDER BY created_at, id`,
      [admin.tenantId],
    );
    const ours = events.rows.filter((e) => e.data.actorKeyId === admin.keyId).map((e) => e.type);
    assert.deepEqual(ours, ['api_key.created', 'api_key.rotated', 'api_key.revoked']);
  });

  it('expires the old key after expireOldInSeconds', async () => {
    // Two instances on one clock the test drives: the rotation dates the expiry by it, and
    // both judge it by it.
    const clock = drivenClock();
    const [one, two] = [
      await startTestServer(url, {}, undefined, clock),
      await startTestServer(url, {}, undefined, clock),
    ];
    const admin = await createTenantWithKey(db, { scopes: ALL });
    const api = client(one.url, admin.secret);
    const old = (await api.post('/v1/api-keys', { scopes: ['customers:read'] })).body;
    const rotated = await api.post(`/v1/api-keys/${old.id}/rotate`, { expireOldInSeconds: 1 });
    assert.equal(rotated.status, 201);
    assert.equal(await whoamiStatus(one.url, old.secret), 200);
    clock.advance(900);
    assert.equal(await whoamiStatus(two.url, old.secret), 200);
    clock.advance(400);
    assert.equal(await whoamiStatus(one.url, old.secret), 401);
    assert.equal(await whoamiStatus(two.url, old.secret), 401);
    assert.equal(await whoamiStatus(one.url, rotated.body.secret), 200);
  });

  it('lists keys with their redacted form and never a secret', async () => {
    const admin = await createTenantWithKey(db, { scopes: ALL });
    const api = client(first.url, admin.secret);
    for (let i = 0; i < 3; i++) await api.post('/v1/api-keys', { scopes: ['customers:read'] });
    await whoamiStatus(first.url, admin.secret);
    await first.verifier.flushLastUsed();
    const page1 = await api.get('/v1/api-keys?limit=2');
    assert.equal(page1.status, 200);
    const page2 = await api.get(
      `/v1/api-keys?limit=2&cursor=${encodeURIComponent(page1.body.nextCursor)}`,
    );
    const all = [...page1.body.data, ...page2.body.data];
    assert.equal(all.length, 4);
    assert.equal(page2.body.nextCursor, null);
    assert.doesNotMatch(page1.text + page2.text, /sk_(test|live)_[0-9A-Za-z]{8}/);
    for (const k of all) {
      assert.match(k.redacted, /^sk_test_…[0-9A-Za-z]{4}$/);
      assert.equal(k.secret, undefined);
    }
    const me = all.find((k) => k.id === admin.keyId);
    assert.match(me.lastUsedAt, /:00\.000Z$/, 'lastUsedAt is kept to the minute');
  });

  it('refuses privilege escalation and changes nothing', async () => {
    const reader = await createTenantWithKey(db, {
      scopes: ['customers:read', 'keys:write', 'keys:read'],
    });
    const api = client(first.url, reader.secret);
    const count = async () =>
      (
        await db.query('SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1', [
          reader.tenantId,
        ])
      ).rows[0].n;
    const before = await count();
    const escalate = await api.post('/v1/api-keys', {
      scopes: ['customers:read', 'invoices:write'],
    });
    assert.equal(escalate.status, 403);
    assert.equal(escalate.body.error.code, 'scope_insufficient');
    assert.equal(escalate.body.error.requiredScope, 'invoices:write');

    const live = await createTenantWithKey(db, {
      tenantId: reader.tenantId,
      environment: 'live',
      scopes: ALL,
    });
    const stranger = await createTenantWithKey(db, { scopes: ALL });
    for (const target of [live.keyId, stranger.keyId]) {
      assert.equal((await api.post(`/v1/api-keys/${target}/revoke`)).status, 404);
      assert.equal((await api.post(`/v1/api-keys/${target}/rotate`)).status, 404);
    }
    // Rotating a key with more scopes than the caller holds would grant them: refused.
    const strong = await createTenantWithKey(db, { tenantId: reader.tenantId, scopes: ALL });
    const rotate = await api.post(`/v1/api-keys/${strong.keyId}/rotate`);
    assert.equal(rotate.status, 403);
    assert.equal(rotate.body.error.code, 'scope_insufficient');
    assert.equal(await count(), before + 2);
    assert.equal(await whoamiStatus(first.url, live.secret), 200);
    assert.equal(await whoamiStatus(first.url, stranger.secret), 200);
    const withoutKeysScope = await createTenantWithKey(db, { scopes: ['customers:read'] });
    const denied = await client(first.url, withoutKeysScope.secret).get('/v1/api-keys');
    assert.equal(denied.body.error.requiredScope, 'keys:read');
  });

  it('refuses unknown scopes and bad bodies with the envelope', async () => {
    const admin = await createTenantWithKey(db, { scopes: ALL });
    const api = client(first.url, admin.secret);
    for (const body of [
      { scopes: ['root'] },
      { scopes: [] },
      { scopes: 'customers:read' },
      { scopes: ['customers:read'], extra: 1 },
    ]) {
      const res = await api.post('/v1/api-keys', body);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'parameter_invalid');
    }
    assert.equal((await api.post('/v1/api-keys', {})).body.error.code, 'parameter_missing');
    const bad = await api.post(`/v1/api-keys/${admin.keyId}/rotate`, { expireOldInSeconds: -1 });
    assert.equal(bad.body.error.code, 'parameter_invalid');
  });

  it('lets a key revoke itself', async () => {
    const admin = await createTenantWithKey(db, { scopes: ['keys:write'] });
    const res = await client(first.url, admin.secret).post(`/v1/api-keys/${admin.keyId}/revoke`);
    assert.equal(res.status, 200);
    // Within the key cache's second (KEY_CACHE_MS), so that it is the revocation itself that
    // refuses the key, not the cache running out.
    const refused = await waitUntil(
      async () => (await whoamiStatus(first.url, admin.secret)) === 401,
      900,
    );
    assert.ok(refused, 'the key that revoked itself is refused');
  });

  it('refuses a one-character change without a database look-up, and an unissued key with one', async () => {
    const k = await createTenantWithKey(db);
    const before = first.verifier.lookups;
    const i = 20;
    const typo = k.secret.slice(0, i) + (k.secret[i] === 'x' ? 'y' : 'x') + k.secret.slice(i + 1);
    const res = await call(first.url, 'GET', '/v1/auth/whoami', { key: typo });
    assert.equal(res.body.error.code, 'api_key_invalid');
    assert.equal(first.verifier.lookups, before, 'no database look-up');
    const { generateSecret } = await import('../../src/keys/secret.ts');
    const unissued = await call(first.url, 'GET', '/v1/auth/whoami', {
      key: generateSecret('test'),
    });
    assert.equal(unissued.body.error.code, 'api_key_invalid');
    assert.equal(first.verifier.lookups, before + 1);
  });

  it('answers no CORS pre-flight', async () => {
    const res = await fetch(`${first.url}/v1/customers`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.ok(res.status >= 400);
    for (const [name] of res.headers) assert.doesNotMatch(name, /^access-control-/);
  });
});
