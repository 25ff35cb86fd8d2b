import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey, startTestApp } from '../helpers.ts';
import { customerTimeZone } from '../../src/customers/service.ts';

const server = await startTestApp();
const key = await createTenantWithKey(server.db, { scopes: ['customers:read', 'customers:write'] });
const api = client(server.url, key.secret);

describe('customers', () => {
  it('creates a customer with every field and reads it back', async () => {
    const body = {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      address: { line1: '1 Main St', city: 'London', postalCode: 'N1', country: 'GB' },
      description: 'Analytical engines',
      metadata: { crm: '42' },
      taxIds: [{ type: 'gb_vat', value: 'GB123456789' }],
      taxExempt: 'reverse',
    };
    const created = await api.post('/v1/customers', body);
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.id, /^cus_/);
    assert.equal(created.body.environment, 'test');
    assert.deepEqual(created.body.address, {
      line1: '1 Main St',
      line2: null,
      city: 'London',
      state: null,
      postalCode: 'N1',
      country: 'GB',
    });
    const fetched = await api.get(`/v1/customers/${created.body.id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, created.body);
    // The list renders its items from text columns; they must be exactly what GET returns.
    const listed = await api.get('/v1/customers?limit=100');
    assert.deepEqual(
      listed.body.data.find((c: { id: string }) => c.id === created.body.id),
      fetched.body,
    );
  });

  it('changes only the fields a PATCH names, and null clears a field', async () => {
    const created = await api.post('/v1/customers', {
      name: 'Grace',
      email: 'grace@example.com',
      phone: '123',
      metadata: { a: '1' },
    });
    const patched = await api.patch(`/v1/customers/${created.body.id}`, {
      phone: null,
      name: 'Grace H.',
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.name, 'Grace H.');
    assert.equal(patched.body.phone, null);
    assert.equal(patched.body.email, 'grace@example.com');
    assert.deepEqual(patched.body.metadata, { a: '1' });
    assert.ok(patched.body.updatedAt >= created.body.updatedAt);
    const cleared = await api.patch(`/v1/customers/${created.body.id}`, {
      metadata: null,
      email: null,
    });
    assert.deepEqual(cleared.body.metadata, {});
    assert.equal(cleared.body.email, null);
  });

  it('refuses bad fields with the envelope and changes nothing', async () => {
    const before = await server.db.query('SELECT count(*)::int AS n FROM customers');
    const cases: [unknown, string, string][] = [
      [{ email: 'not-an-email' }, 'parameter_invalid', 'email'],
      [{ address: { country: 'XX' } }, 'parameter_invalid', 'address.country'],
      [{ address: { country: 'de' } }, 'parameter_invalid', 'address.country'],
      [{ name: '' }, 'parameter_invalid', 'name'],
      [{ name: 5 }, 'parameter_invalid', 'name'],
      [{ nickname: 'x' }, 'parameter_invalid', 'nickname'],
      [{ metadata: { n: 1 } }, 'parameter_invalid', 'metadata.n'],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, 'parameter_invalid', 'metadata'],
      [{ metadata: { k: 'v'.repeat(501) } }, 'parameter_invalid', 'metadata.k'],
      [
        { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
        'parameter_invalid',
        'metadata',
      ],
      [
        { taxIds: Array.from({ length: 6 }, () => ({ type: 'eu_vat', value: 'DE1' })) },
        'parameter_invalid',
        'taxIds',
      ],
      [{ taxIds: [{ type: 'xx_vat', value: '1' }] }, 'parameter_invalid', 'taxIds.0.type'],
      [{ taxIds: [{ type: 'eu_vat' }] }, 'parameter_missing', 'taxIds.0.value'],
      [{ taxExempt: 'sometimes' }, 'parameter_invalid', 'taxExempt'],
    ];
    for (const [body, code, param] of cases) {
      const res = await api.post('/v1/customers', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
      assert.equal(res.body.error.code, code, JSON.stringify(body));
      assert.equal(res.body.error.param, param, JSON.stringify(body));
    }
    const after = await server.db.query('SELECT count(*)::int AS n FROM customers');
    assert.equal(after.rows[0].n, before.rows[0].n);
  });

  it('answers 404 resource_missing for unknown ids', async () => {
    for (const res of [
      await api.get('/v1/customers/cus_nope'),
      await api.patch('/v1/customers/cus_nope', { name: 'x' }),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'resource_missing');
    }
  });

  it('filters by e-mail, in any case', async () => {
    await api.post('/v1/customers', { email: 'Filter.Me@example.com' });
    await api.post('/v1/customers', { email: 'other@example.com' });
    const res = await api.get('/v1/customers?email=filter.me%40EXAMPLE.com');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.length, 1);
    assert.equal(res.body.data[0].email, 'Filter.Me@example.com');
    assert.equal(res.body.nextCursor, null);
  });
});

describe('customer scopes', () => {
  it('needs exactly the endpoint scope: write does not imply read', async () => {
    const writer = await createTenantWithKey(server.db, { scopes: ['customers:write'] });
    const reader = await createTenantWithKey(server.db, {
      scopes: ['customers:read'],
      tenantId: writer.tenantId,
    });
    const created = await client(server.url, writer.secret).post('/v1/customers', { name: 'W' });
    assert.equal(created.status, 201);
    const denied = await client(server.url, writer.secret).get(`/v1/customers/${created.body.id}`);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, 'scope_insufficient');
    assert.equal(denied.body.error.requiredScope, 'customers:read');
    const list = await client(server.url, writer.secret).get('/v1/customers');
    assert.equal(list.body.error.requiredScope, 'customers:read');
    const readOk = await client(server.url, reader.secret).get(`/v1/customers/${created.body.id}`);
    assert.equal(readOk.status, 200);
    const writeDenied = await client(server.url, reader.secret).post('/v1/customers', {
      name: 'R',
    });
    assert.equal(writeDenied.status, 403);
    assert.equal(writeDenied.body.error.requiredScope, 'customers:write');
    const patchDenied = await client(server.url, reader.secret).patch(
      `/v1/customers/${created.body.id}`,
      {
        name: 'R',
      },
    );
    assert.equal(patchDenied.status, 403);
  });

  it('never shows a customer to another tenant or environment', async () => {
    const owner = await createTenantWithKey(server.db, {
      scopes: ['customers:read', 'customers:write'],
    });
    const live = await createTenantWithKey(server.db, {
      scopes: ['customers:read', 'customers:write'],
      tenantId: owner.tenantId,
      environment: 'live',
    });
    const stranger = await createTenantWithKey(server.db, {
      scopes: ['customers:read', 'customers:write'],
    });
    const created = await client(server.url, owner.secret).post('/v1/customers', { name: 'Mine' });
    for (const other of [live, stranger]) {
      const c = client(server.url, other.secret);
      assert.equal((await c.get(`/v1/customers/${created.body.id}`)).status, 404);
      assert.equal((await c.patch(`/v1/customers/${created.body.id}`, { name: 'x' })).status, 404);
      const list = await c.get('/v1/customers?limit=100');
      assert.ok(!list.body.data.some((x: { id: string }) => x.id === created.body.id));
    }
    const mine = await client(server.url, owner.secret).get(`/v1/customers/${created.body.id}`);
    assert.equal(mine.body.name, 'Mine');
  });

  it('shows a new customer in every list asked for after its creation, under concurrent identical lists', async () => {
    // Identical lists that queue for a connection share one query (src/db/shared-reads.ts):
    // none may answer from a query that began before the request came.
    // A shared page is encoded once and sent to every request that shares it: each gets the
    // whole body, with its length in bytes (the name below is not ASCII).
    const busy = Array.from({ length: 40 }, () => api.get('/v1/customers?limit=5'));
    const created = await api.post('/v1/customers', { name: 'Seen at once – Größe 請求' });
    assert.equal(created.status, 201);
    const after = await Promise.all(
      Array.from({ length: 40 }, () => api.get('/v1/customers?limit=5')),
    );
    for (const res of after) {
      assert.equal(res.status, 200);
      assert.equal(res.body.data[0].id, created.body.id);
      assert.equal(res.body.data[0].name, 'Seen at once – Größe 請求');
      assert.equal(res.text, after[0]!.text);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text));
    }
    for (const res of await Promise.all(busy)) assert.equal(res.status, 200);
  });
});

describe("a customer's time zone", () => {
  it('has none by default, takes an IANA name, and null gives it back to the tenant', async () => {
    const plain = await api.post('/v1/customers', { name: 'No zone' });
    assert.equal(plain.body.timeZone, null);
    const created = await api.post('/v1/customers', {
      name: 'Auckland',
      timeZone: 'Pacific/Auckland',
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.timeZone, 'Pacific/Auckland');
    const moved = await api.patch(`/v1/customers/${created.body.id}`, { timeZone: 'asia/kolkata' });
    assert.equal(moved.status, 200, moved.text);
    assert.match(moved.body.timeZone, /^Asia\/(Kolkata|Calcutta)$/);
    const untouched = await api.patch(`/v1/customers/${created.body.id}`, { name: 'Auckland Ltd' });
    assert.equal(untouched.body.timeZone, moved.body.timeZone);
    const cleared = await api.patch(`/v1/customers/${created.body.id}`, { timeZone: null });
    assert.equal(cleared.body.timeZone, null);
    assert.equal((await api.get(`/v1/customers/${created.body.id}`)).body.timeZone, null);
  });

  it('refuses a time zone that does not exist, at creation and in a PATCH, and changes nothing', async () => {
    const refused = await api.post('/v1/customers', { name: 'Olympus', timeZone: 'Mars/Olympus' });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.code, 'parameter_invalid');
    assert.equal(refused.body.error.param, 'timeZone');
    const created = await api.post('/v1/customers', { name: 'Lisbon', timeZone: 'Europe/Lisbon' });
    for (const timeZone of ['Mars/Olympus', '-03:00']) {
      const patch = await api.patch(`/v1/customers/${created.body.id}`, { name: 'x', timeZone });
      assert.equal(patch.status, 400, patch.text);
      assert.equal(patch.body.error.param, 'timeZone');
    }
    const read = await api.get(`/v1/customers/${created.body.id}`);
    assert.equal(read.body.name, 'Lisbon');
    assert.equal(read.body.timeZone, 'Europe/Lisbon');
  });

  it("is the customer's own, else the tenant's (customerTimeZone)", () => {
    const settings = { time_zone: 'Europe/Berlin' };
    assert.equal(customerTimeZone({ time_zone: null }, settings), 'Europe/Berlin');
    assert.equal(customerTimeZone({ time_zone: 'America/Chicago' }, settings), 'America/Chicago');
  });
});
