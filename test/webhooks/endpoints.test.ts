import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { client, createTenantWithKey, createTestDatabase, startTestServer } from '../helpers.ts';

const url = await createTestDatabase();
const server = await startTestServer(url, { webhooksAllowLoopback: true });
// The same database served without WEBHOOKS_ALLOW_LOOPBACK.
const strict = await startTestServer(url, { runWorker: false });
const db = server.db;

// Nothing is ever sent to these: no events of their type are made, or they are disabled.
const LOCAL = 'http://127.0.0.1:9/hooks';
const PUBLIC = 'https://93.184.215.14/hooks';

describe('webhook endpoints', () => {
  it('creates an endpoint and shows its signing secret once', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    const created = await api.post('/v1/webhook-endpoints', {
      url: LOCAL,
      enabledEvents: ['invoice.paid', 'invoice.voided'],
      description: 'Accounting',
    });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.id, /^we_/);
    assert.equal(created.body.object, 'webhook_endpoint');
    assert.deepEqual(created.body.enabledEvents, ['invoice.paid', 'invoice.voided']);
    assert.equal(created.body.disabled, false);
    assert.equal(created.body.disabledReason, null);
    assert.equal(created.body.environment, 'test');
    // whsec_ + base64 of 24 random bytes, as the standardwebhooks library reads it.
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(created.body.secret.slice(6), 'base64').length, 24);
    assert.doesNotThrow(() => new Webhook(created.body.secret));

    const { secret: _secret, ...shown } = created.body;
    const fetched = await api.get(`/v1/webhook-endpoints/${created.body.id}`);
    assert.deepEqual(fetched.body, shown);
    const listed = await api.get('/v1/webhook-endpoints');
    assert.deepEqual(listed.body.data, [shown]);
    assert.equal(listed.body.nextCursor, null);
    assert.ok(!fetched.text.includes('whsec_') && !listed.text.includes('whsec_'));
  });

  it('changes only what a PATCH names, and deletes', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    const { body: endpoint } = await api.post('/v1/webhook-endpoints', {
      url: LOCAL,
      enabledEvents: ['*'],
      description: 'first',
    });
    const disabled = await api.patch(`/v1/webhook-endpoints/${endpoint.id}`, { disabled: true });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(disabled.body.disabled, true);
    assert.equal(disabled.body.disabledReason, 'requested');
    assert.equal(disabled.body.description, 'first');
    const changed = await api.patch(`/v1/webhook-endpoints/${endpoint.id}`, {
      enabledEvents: ['invoice.paid'],
      description: null,
      disabled: false,
    });
    assert.deepEqual(
      [changed.body.enabledEvents, changed.body.description, changed.body.disabled],
      [['invoice.paid'], null, false],
    );
    assert.equal(changed.body.disabledReason, null);
    assert.equal(changed.body.url, LOCAL);

    const deleted = await api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
    assert.deepEqual(deleted.body, { id: endpoint.id, object: 'webhook_endpoint', deleted: true });
    for (const res of [
      await api.get(`/v1/webhook-endpoints/${endpoint.id}`),
      await api.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`),
      await api.delete(`/v1/webhook-endpoints/${endpoint.id}`),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'resource_missing');
    }
  });

  it('replays a creation with the same Idempotency-Key', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    const body = { url: LOCAL, enabledEvents: ['invoice.paid'] };
    const headers = { 'idempotency-key': 'endpoint-1' };
    const first = await api.post('/v1/webhook-endpoints', body, headers);
    const again = await api.post('/v1/webhook-endpoints', body, headers);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal((await api.get('/v1/webhook-endpoints')).body.data.length, 1);
  });

  it('refuses bad bodies with the envelope', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    const cases: [unknown, string, string][] = [
      [{ enabledEvents: ['*'] }, 'parameter_missing', 'url'],
      [{ url: LOCAL }, 'parameter_missing', 'enabledEvents'],
      [{ url: LOCAL, enabledEvents: [] }, 'parameter_invalid', 'enabledEvents'],
      [{ url: LOCAL, enabledEvents: ['invoice.exploded'] }, 'parameter_invalid', 'enabledEvents.0'],
      [{ url: LOCAL, enabledEvents: ['*', 'invoice.paid'] }, 'parameter_invalid', 'enabledEvents'],
      [{ url: LOCAL, enabledEvents: ['*'], colour: 'red' }, 'parameter_invalid', 'colour'],
      [{ url: 'not a url', enabledEvents: ['*'] }, 'parameter_invalid', 'url'],
      [{ url: 'ftp://127.0.0.1/x', enabledEvents: ['*'] }, 'parameter_invalid', 'url'],
    ];
    for (const [body, code, param] of cases) {
      const res = await api.post('/v1/webhook-endpoints', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, code, JSON.stringify(body));
      assert.equal(res.body.error.param, param, JSON.stringify(body));
    }
  });

  it('needs webhooks:read to read and webhooks:write to change', async () => {
    const reader = await createTenantWithKey(db, { scopes: ['webhooks:read'] });
    const other = await createTenantWithKey(db, {
      tenantId: reader.tenantId,
      scopes: ['customers:read', 'customers:write'],
    });
    const write = await client(server.url, reader.secret).post('/v1/webhook-endpoints', {
      url: LOCAL,
      enabledEvents: ['*'],
    });
    assert.equal(write.status, 403);
    assert.equal(write.body.error.requiredScope, 'webhooks:write');
    assert.equal(
      (await client(server.url, reader.secret).get('/v1/webhook-endpoints')).status,
      200,
    );
    const read = await client(server.url, other.secret).get('/v1/webhook-endpoints');
    assert.equal(read.status, 403);
    assert.equal(read.body.error.requiredScope, 'webhooks:read');
  });

  it('never shows an endpoint or its deliveries to another tenant or environment', async () => {
    const owner = await createTenantWithKey(db);
    const { body: endpoint } = await client(server.url, owner.secret).post(
      '/v1/webhook-endpoints',
      { url: LOCAL, enabledEvents: ['invoice.paid'] },
    );
    const live = await createTenantWithKey(db, { tenantId: owner.tenantId, environment: 'live' });
    const stranger = await createTenantWithKey(db);
    for (const other of [live, stranger]) {
      const api = client(server.url, other.secret);
      for (const res of [
        await api.get(`/v1/webhook-endpoints/${endpoint.id}`),
        await api.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`),
        await api.patch(`/v1/webhook-endpoints/${endpoint.id}`, { disabled: true }),
        await api.post(`/v1/webhook-endpoints/${endpoint.id}/deliveries/wd_x/retry`),
        await api.delete(`/v1/webhook-endpoints/${endpoint.id}`),
      ]) {
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.error.code, 'resource_missing');
      }
      assert.deepEqual((await api.get('/v1/webhook-endpoints')).body.data, []);
    }
  });
});

describe('server-side request forgery guard', () => {
  const FORBIDDEN = [
    'http://93.184.215.14/hooks', // live needs https
    'https://127.0.0.1/hooks',
    'https://127.8.9.10/hooks',
    'https://localhost/hooks',
    'https://2130706433/hooks', // 127.0.0.1 as one number
    'https://0x7f.0.0.1/hooks',
    'https://[::1]/hooks',
    'https://0.0.0.0/hooks',
    'https://[::]/hooks',
    'https://10.1.2.3/hooks',
    'https://172.16.0.1/hooks',
    'https://172.31.255.255/hooks',
    'https://192.168.1.1/hooks',
    'https://100.64.0.1/hooks', // CGNAT
    'https://169.254.169.254/latest/meta-data', // cloud metadata, link-local
    'https://224.0.0.1/hooks', // multicast
    'https://255.255.255.255/hooks',
    'https://198.18.0.1/hooks',
    'https://[::ffff:127.0.0.1]/hooks', // IPv4-mapped IPv6
    'https://[::ffff:a00:1]/hooks', // 10.0.0.1, mapped
    'https://[64:ff9b::a9fe:a9fe]/hooks', // NAT64 of 169.254.169.254
    'https://[fe80::1]/hooks',
    'https://[fc00::1]/hooks',
    'https://[fd12:3456::1]/hooks',
    'https://[ff02::1]/hooks',
    'https://[2001:db8::1]/hooks',
    'https://[2002:7f00:1::1]/hooks', // 6to4 of 127.0.0.1
  ];

  it('refuses live endpoints that are not https or resolve to internal addresses', async () => {
    const key = await createTenantWithKey(db, { environment: 'live' });
    const api = client(server.url, key.secret);
    for (const target of FORBIDDEN) {
      const res = await api.post('/v1/webhook-endpoints', { url: target, enabledEvents: ['*'] });
      assert.equal(res.status, 400, `${target}: ${res.text}`);
      assert.equal(res.body.error.code, 'parameter_invalid');
      assert.equal(res.body.error.param, 'url');
    }
    assert.deepEqual((await api.get('/v1/webhook-endpoints')).body.data, []);
  });

  it('accepts a live endpoint on a public address, and checks a new URL again', async () => {
    const key = await createTenantWithKey(db, { environment: 'live' });
    const api = client(server.url, key.secret);
    for (const target of [PUBLIC, 'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hooks']) {
      const res = await api.post('/v1/webhook-endpoints', {
        url: target,
        enabledEvents: ['invoice.paid'],
        disabled: true,
      });
      assert.equal(res.status, 201, res.text);
      const moved = await api.patch(`/v1/webhook-endpoints/${res.body.id}`, {
        url: 'https://10.0.0.1/hooks',
      });
      assert.equal(moved.status, 400);
      assert.equal(moved.body.error.param, 'url');
      assert.equal((await api.get(`/v1/webhook-endpoints/${res.body.id}`)).body.url, target);
    }
  });

  it('lets test endpoints use http on loopback only where configuration allows', async () => {
    const key = await createTenantWithKey(db);
    const allowed = await client(server.url, key.secret).post('/v1/webhook-endpoints', {
      url: 'http://localhost:9/hooks',
      enabledEvents: ['invoice.paid'],
    });
    assert.equal(allowed.status, 201, allowed.text);
    for (const target of ['http://10.0.0.1/hooks', 'https://169.254.169.254/x']) {
      const res = await client(server.url, key.secret).post('/v1/webhook-endpoints', {
        url: target,
        enabledEvents: ['*'],
      });
      assert.equal(res.status, 400, target);
    }
    const refused = await client(strict.url, key.secret).post('/v1/webhook-endpoints', {
      url: LOCAL,
      enabledEvents: ['invoice.paid'],
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.param, 'url');
  });
});
