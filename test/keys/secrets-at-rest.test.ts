// No secret in clear at rest (API.md part C, "Secrets and isolation"): stored idempotent
// results that carry a secret are sealed for the very key that made them, webhook signing
// secrets are sealed under the server's secrets key, and a copy of the database alone yields
// no working secret.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { resealEndpointSecrets } from '../../src/webhooks/endpoints.ts';
import { SecretsKeyring } from '../../src/secrets/keyring.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import {
  client,
  createTenantWithKey,
  createTestDatabase,
  revokeKey,
  rotateKey,
  waitFor,
  startTestServer,
} from '../helpers.ts';

const newKey = () => randomBytes(32).toString('base64');
const firstKey = newKey();
const url = await createTestDatabase();
const server = await startTestServer(url, { secretsKey: firstKey, webhooksAllowLoopback: true });
const db = server.db;
const ALL = ['customers:read', 'customers:write', 'keys:read', 'keys:write', 'webhooks:write'];

/** Every secret this file was shown, to look for in the database at the end. */
const shown: string[] = [];
const keep = <T extends { secret: string }>(value: T): T => {
  shown.push(value.secret);
  return value;
};

async function countKeys(tenantId: string): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1', [
    tenantId,
  ]);
  return rows[0].n;
}

describe('secrets at rest', () => {
  it('replays a new key, with its secret, only to the very key that made it', async () => {
    const admin = keep(await createTenantWithKey(db, { scopes: ALL }));
    // A weaker key of the same tenant and environment: it may write keys, nothing else.
    const weak = keep(
      await createTenantWithKey(db, { tenantId: admin.tenantId, scopes: ['keys:write'] }),
    );
    const headers = { 'idempotency-key': 'new-key-1' };
    const body = { scopes: ['keys:write'] };
    const made = await client(server.url, admin.secret).post('/v1/api-keys', body, headers);
    assert.equal(made.status, 201, made.text);
    keep(made.body);
    const before = await countKeys(admin.tenantId);

    const stolen = await client(server.url, weak.secret).post('/v1/api-keys', body, headers);
    assert.equal(stolen.status, 422, stolen.text);
    assert.equal(stolen.body.error.code, 'idempotency_key_reused');
    assert.ok(!stolen.text.includes(made.body.secret));
    assert.equal(await countKeys(admin.tenantId), before, 'nothing was created');

    const again = await client(server.url, admin.secret).post('/v1/api-keys', body, headers);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.secret, made.body.secret);
    assert.equal(again.text, made.text);
  });

  it('replays a rotation only to the key that asked, and to no key of its lineage', async () => {
    const admin = keep(await createTenantWithKey(db, { scopes: ALL }));
    const headers = { 'idempotency-key': 'rotate-1' };
    const api = client(server.url, admin.secret);
    const target = keep((await api.post('/v1/api-keys', { scopes: ['customers:read'] })).body);
    const rotated = await api.post(`/v1/api-keys/${target.id}/rotate`, {}, headers);
    assert.equal(rotated.status, 201, rotated.text);
    keep(rotated.body);
    // The admin's own rotated successor is of its lineage, but is not the key that asked.
    const successor = keep(await rotateKey(db, admin));
    const replay = await client(server.url, successor.secret).post(
      `/v1/api-keys/${target.id}/rotate`,
      {},
      headers,
    );
    assert.equal(replay.status, 422, replay.text);
    assert.ok(!replay.text.includes(rotated.body.secret));
  });

  it('replays a result without a secret to a key of the same lineage, not to another key', async () => {
    const admin = keep(await createTenantWithKey(db, { scopes: ALL }));
    const other = keep(await createTenantWithKey(db, { tenantId: admin.tenantId, scopes: ALL }));
    const headers = { 'idempotency-key': 'customer-1' };
    const made = await client(server.url, admin.secret).post(
      '/v1/customers',
      { name: 'Lineage' },
      headers,
    );
    assert.equal(made.status, 201);
    const successor = keep(await rotateKey(db, admin));
    const byLineage = await client(server.url, successor.secret).post(
      '/v1/customers',
      { name: 'Lineage' },
      headers,
    );
    assert.equal(byLineage.status, 201);
    assert.equal(byLineage.headers.get('idempotent-replayed'), 'true');
    assert.equal(byLineage.body.id, made.body.id);
    const byOther = await client(server.url, other.secret).post(
      '/v1/customers',
      { name: 'Lineage' },
      headers,
    );
    assert.equal(byOther.status, 422, byOther.text);
  });

  it('stores webhook signing secrets sealed under a key the database does not hold', async () => {
    const admin = keep(await createTenantWithKey(db, { scopes: ALL }));
    const receiver = await startReceiver();
    const made = await client(server.url, admin.secret).post(
      '/v1/webhook-endpoints',
      { url: receiver.url('/sealed'), enabledEvents: ['customer.created'] },
      { 'idempotency-key': 'endpoint-1' },
    );
    assert.equal(made.status, 201, made.text);
    keep(made.body);
    receiver.expectSecret('/sealed', made.body.secret);
    const { rows } = await db.query('SELECT secret FROM webhook_endpoints WHERE id = $1', [
      made.body.id,
    ]);
    const stored: string = rows[0].secret;
    assert.match(stored, /^v1\./);
    const other = new SecretsKeyring(randomBytes(32));
    assert.throws(() => other.open(stored, 'anything'));
    // Deliveries are still signed with the secret the client was shown.
    await client(server.url, admin.secret).post('/v1/customers', { name: 'Signed' });
    await waitFor(() => receiver.at('/sealed').length > 0, 'the delivery', 5000);
    assert.equal(receiver.at('/sealed').length, 1);
    assert.ok(receiver.at('/sealed')[0]!.verified, 'signed with the shown secret');
  });

  it('refuses to start with another secrets key, and reseals under a new one', async () => {
    await assert.rejects(startTestServer(url, { secretsKey: newKey() }), /sealed with another key/);
    const secondKey = newKey();
    const rotated = new SecretsKeyring(Buffer.from(secondKey, 'base64'), [
      Buffer.from(firstKey, 'base64'),
    ]);
    const resealed = await resealEndpointSecrets(db, rotated);
    assert.ok(resealed >= 1);
    const { rows } = await db.query('SELECT secret FROM webhook_endpoints');
    for (const row of rows) assert.ok(rotated.isCurrent(row.secret));
    // Sealed under the new key only: a server with just the old key can no longer open them.
    const oldOnly = new SecretsKeyring(Buffer.from(firstKey, 'base64'));
    assert.throws(() => oldOnly.open(rows[0].secret, 'x'));
  });

  it('refuses to rotate a revoked or an expired key', async () => {
    const admin = keep(await createTenantWithKey(db, { scopes: ALL }));
    const api = client(server.url, admin.secret);
    const revoked = keep((await api.post('/v1/api-keys', { scopes: ['customers:read'] })).body);
    assert.equal((await api.post(`/v1/api-keys/${revoked.id}/revoke`)).status, 200);
    const again = await api.post(`/v1/api-keys/${revoked.id}/rotate`);
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.error.code, 'state_invalid');

    const expiring = keep(
      await createTenantWithKey(db, { tenantId: admin.tenantId, scopes: ['customers:read'] }),
    );
    keep(await rotateKey(db, expiring, { expireOldInSeconds: 0 }));
    await assert.rejects(rotateKey(db, expiring), (e: any) => e.code === 'state_invalid');
    const byApi = await api.post(`/v1/api-keys/${expiring.keyId}/rotate`);
    assert.equal(byApi.status, 409, byApi.text);
    await revokeKey(db, expiring);
  });

  it('refuses a key that lacks a scope the target key holds, for revoke as for rotate', async () => {
    const admin = keep(await createTenantWithKey(db, { scopes: ALL }));
    const keysOnly = keep(
      await createTenantWithKey(db, {
        tenantId: admin.tenantId,
        scopes: ['keys:read', 'keys:write'],
      }),
    );
    const strong = keep(
      (await client(server.url, admin.secret).post('/v1/api-keys', { scopes: ['customers:write'] }))
        .body,
    );
    const weak = client(server.url, keysOnly.secret);
    for (const action of ['revoke', 'rotate']) {
      const res = await weak.post(`/v1/api-keys/${strong.id}/${action}`);
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'scope_insufficient');
      assert.equal(res.body.error.requiredScope, 'customers:write');
    }
    // A key may still revoke itself.
    assert.equal((await weak.post(`/v1/api-keys/${keysOnly.keyId}/revoke`)).status, 200);
  });

  it('holds no secret it has shown anywhere in the database', async () => {
    assert.ok(shown.length >= 15);
    const { rows: tables } = await db.query(
      `SELECT quote_ident(table_name) AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const leaks: string[] = [];
    for (const { name } of tables) {
      // Every column of every row, as text (the identifier comes from the catalogue).
      const { rows } = await db.query(`SELECT t::text AS row FROM ${name} t`);
      for (const { row } of rows) {
        for (const secret of shown) if (row.includes(secret)) leaks.push(`${name}: ${secret}`);
        if (/sk_(live|test)_[0-9A-Za-z]{38}|whsec_[A-Za-z0-9+/]{32}/.test(row)) leaks.push(name);
      }
    }
    assert.deepEqual(leaks, []);
  });
});
