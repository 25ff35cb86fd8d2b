import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { purgeExpiredIdempotencyKeys } from '../../src/db/unit-of-work.ts';
import {
  client,
  createTenantWithKey,
  createTestDatabase,
  ddlBesideWork,
  rotateKey,
  startTestServer,
} from '../helpers.ts';
import { checkNodeResponse } from '../openapi/conformance.ts';

const url = await createTestDatabase();
const first = await startTestServer(url);
const second = await startTestServer(url);
const db = first.db;

const countCustomers = async (tenantId: string, name: string) =>
  (
    await db.query('SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1 AND name = $2', [
      tenantId,
      name,
    ])
  ).rows[0].n as number;

describe('idempotency keys', () => {
  it('replays a finished request byte for byte and changes nothing', async () => {
    const k = await createTenantWithKey(db);
    const api = client(first.url, k.secret);
    const headers = { 'idempotency-key': 'create-ada-1' };
    const a = await api.post('/v1/customers', { name: 'Ada', email: 'ada@example.com' }, headers);
    assert.equal(a.status, 201);
    assert.equal(a.headers.get('idempotent-replayed'), null);
    const b = await api.post('/v1/customers', { email: 'ada@example.com', name: 'Ada' }, headers);
    assert.equal(b.status, 201);
    assert.equal(b.headers.get('idempotent-replayed'), 'true');
    assert.equal(b.text, a.text);
    // From the other instance too.
    const c = await client(second.url, k.secret).post(
      '/v1/customers',
      { name: 'Ada', email: 'ada@example.com' },
      headers,
    );
    assert.equal(c.text, a.text);
    assert.equal(await countCustomers(k.tenantId, 'Ada'), 1);
    const events = await db.query(
      `SELECT count(*)::int AS n FROM events WHERE tenant_id = $1 AND type = 'customer.created'`,
      [k.tenantId],
    );
    assert.equal(events.rows[0].n, 1);
  });

  it('refuses the same key with another body, path or method with idempotency_key_reused', async () => {
    const k = await createTenantWithKey(db);
    const api = client(first.url, k.secret);
    const headers = { 'idempotency-key': 'k-reuse' };
    const created = await api.post('/v1/customers', { name: 'One' }, headers);
    assert.equal(created.status, 201);
    const differentBody = await api.post('/v1/customers', { name: 'Two' }, headers);
    assert.equal(differentBody.status, 422);
    assert.equal(differentBody.body.error.code, 'idempotency_key_reused');
    const differentMethodAndPath = await api.patch(
      `/v1/customers/${created.body.id}`,
      { name: 'One' },
      headers,
    );
    assert.equal(differentMethodAndPath.body.error.code, 'idempotency_key_reused');
    const differentPath = await api.post('/v1/customers?x', { name: 'One' }, headers);
    assert.equal(differentPath.status, 400, 'an unknown query parameter is refused before it runs');
    assert.equal(await countCustomers(k.tenantId, 'Two'), 0);
  });

  it('lets 50 concurrent requests with one key over two instances create exactly one customer', async () => {
    const k = await createTenantWithKey(db);
    const headers = { 'idempotency-key': 'race-1' };
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        client(i % 2 ? first.url : second.url, k.secret).post(
          '/v1/customers',
          { name: 'Racer' },
          headers,
        ),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const busy = results.filter((r) => r.status === 409);
    assert.equal(created.length + busy.length, 50, results.map((r) => r.status).join(','));
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((r) => r.text)).size, 1, 'every success is the same result');
    for (const r of busy) assert.equal(r.body.error.code, 'idempotency_key_in_use');
    assert.equal(await countCustomers(k.tenantId, 'Racer'), 1);
  });

  it('stores nothing when the work fails inside its transaction, so the key can be retried', async () => {
    const k = await createTenantWithKey(db);
    const api = client(first.url, k.secret);
    await db.query(`CREATE OR REPLACE FUNCTION fail_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.name = 'Boom' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
    await ddlBesideWork(
      db,
      'CREATE TRIGGER fail_boom BEFORE INSERT ON customers FOR EACH ROW EXECUTE FUNCTION fail_boom()',
    );
    const headers = { 'idempotency-key': 'retry-after-failure' };
    try {
      const failed = await api.post('/v1/customers', { name: 'Boom' }, headers);
      assert.equal(failed.status, 500);
      assert.equal(failed.body.error.code, 'internal_error');
      assert.doesNotMatch(failed.text, /injected/, 'no details of the failure');
      const stored = await db.query(
        'SELECT count(*)::int AS n FROM idempotency_keys WHERE tenant_id = $1',
        [k.tenantId],
      );
      assert.equal(stored.rows[0].n, 0);
    } finally {
      await ddlBesideWork(db, 'DROP TRIGGER fail_boom ON customers');
    }
    const retried = await api.post('/v1/customers', { name: 'Boom' }, headers);
    assert.equal(retried.status, 201);
    assert.equal(retried.headers.get('idempotent-replayed'), null);
    assert.equal(await countCustomers(k.tenantId, 'Boom'), 1);
  });

  it('keeps keys of one tenant or environment apart from another', async () => {
    const a = await createTenantWithKey(db);
    const aLive = await createTenantWithKey(db, { tenantId: a.tenantId, environment: 'live' });
    const b = await createTenantWithKey(db);
    const headers = { 'idempotency-key': 'shared-key' };
    const ids = new Set<string>();
    for (const k of [a, aLive, b]) {
      const res = await client(first.url, k.secret).post(
        '/v1/customers',
        { name: 'Same' },
        headers,
      );
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('idempotent-replayed'), null);
      ids.add(res.body.id);
    }
    assert.equal(ids.size, 3);
  });

  it('matches a retry made with a rotated key of the same tenant and environment', async () => {
    const k = await createTenantWithKey(db);
    const headers = { 'idempotency-key': 'rotation-safe' };
    const a = await client(first.url, k.secret).post('/v1/customers', { name: 'Rotated' }, headers);
    const rotated = await rotateKey(db, k, {});
    const b = await client(first.url, rotated.secret).post(
      '/v1/customers',
      { name: 'Rotated' },
      headers,
    );
    assert.equal(b.headers.get('idempotent-replayed'), 'true');
    assert.equal(b.text, a.text);
  });

  it('stores and replays a 404, but not a validation error', async () => {
    const k = await createTenantWithKey(db);
    const api = client(first.url, k.secret);
    const missing = await api.patch(
      '/v1/customers/cus_missing',
      { name: 'x' },
      { 'idempotency-key': 'k404' },
    );
    assert.equal(missing.status, 404);
    const again = await api.patch(
      '/v1/customers/cus_missing',
      { name: 'x' },
      { 'idempotency-key': 'k404' },
    );
    assert.equal(again.status, 404);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.text, missing.text);
    const invalid = await api.post(
      '/v1/customers',
      { email: 'nope' },
      { 'idempotency-key': 'k400' },
    );
    assert.equal(invalid.status, 400);
    const fixed = await api.post(
      '/v1/customers',
      { email: 'fixed@example.com' },
      { 'idempotency-key': 'k400' },
    );
    assert.equal(fixed.status, 201);
  });

  it('refuses empty, long or non-printable keys with idempotency_key_invalid', async () => {
    const k = await createTenantWithKey(db);
    const target = new URL(first.url);
    const send = (value: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            method: 'POST',
            path: '/v1/customers',
            headers: {
              authorization: `Bearer ${k.secret}`,
              'content-type': 'application/json',
              'idempotency-key': value,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const bytes = Buffer.concat(chunks);
              checkNodeResponse('POST', new URL('/v1/customers', target), res, bytes).then(
                () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(bytes.toString()) }),
                reject,
              );
            });
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ name: 'Bad key' }));
      });
    for (const value of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await send(value);
      assert.equal(res.status, 400, value);
      assert.equal(res.body.error.code, 'idempotency_key_invalid');
    }
    assert.equal((await send('x'.repeat(255))).status, 201);
    assert.equal(await countCustomers(k.tenantId, 'Bad key'), 1);
  });

  it('purges records after 24 hours, and the key then works as new', async () => {
    const k = await createTenantWithKey(db);
    const api = client(first.url, k.secret);
    const headers = { 'idempotency-key': 'old-key' };
    const a = await api.post('/v1/customers', { name: 'Old' }, headers);
    await db.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE tenant_id = $1`,
      [k.tenantId],
    );
    assert.ok((await purgeExpiredIdempotencyKeys(db)) >= 1);
    const left = await db.query(
      'SELECT count(*)::int AS n FROM idempotency_keys WHERE tenant_id = $1',
      [k.tenantId],
    );
    assert.equal(left.rows[0].n, 0);
    const b = await api.post('/v1/customers', { name: 'Old' }, headers);
    assert.equal(b.status, 201);
    assert.equal(b.headers.get('idempotent-replayed'), null);
    assert.notEqual(b.body.id, a.body.id);
  });
});
