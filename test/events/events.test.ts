import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey, startTestApp } from '../helpers.ts';

const server = await startTestApp();
const db = server.db;

async function allEvents(api: ReturnType<typeof client>, query = ''): Promise<any[]> {
  const events: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? '&' : '';
    const page: any = await api.get(
      `/v1/events?${query}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(page.status, 200, page.text);
    events.push(...page.body.data);
    cursor = page.body.nextCursor;
  } while (cursor);
  return events;
}

describe('events of changes', () => {
  it('writes one event per change, with its snapshot, in commit order per object', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    const created = await api.post('/v1/customers', { name: 'Ada' });
    const first = await api.patch(`/v1/customers/${created.body.id}`, { name: 'Ada L.' });
    const headers = { 'idempotency-key': 'patch-2' };
    const second = await api.patch(`/v1/customers/${created.body.id}`, { phone: '1' }, headers);
    // A replay changes nothing, so it writes no event.
    const replay = await api.patch(`/v1/customers/${created.body.id}`, { phone: '1' }, headers);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');

    const ofCustomer = (await allEvents(api)).filter((e) => e.data.object.id === created.body.id);
    assert.deepEqual(
      ofCustomer.map((e) => e.type),
      ['customer.updated', 'customer.updated', 'customer.created'],
    );
    assert.deepEqual(
      ofCustomer.map((e) => e.data.object),
      [second.body, first.body, created.body],
    );
    for (const event of ofCustomer) {
      assert.match(event.id, /^evt_/);
      assert.equal(event.object, 'event');
      assert.equal(event.environment, 'test');
      assert.ok(!Number.isNaN(Date.parse(event.createdAt)));
    }
    // Newest first, and ids grow with time too.
    const times = ofCustomer.map((e) => e.createdAt);
    assert.deepEqual(times, [...times].sort().reverse());
  });

  it('records api key changes without their secret', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    const made = await api.post('/v1/api-keys', { name: 'ci', scopes: ['customers:read'] });
    assert.equal(made.status, 201, made.text);
    const rotated = await api.post(`/v1/api-keys/${made.body.id}/rotate`, {});
    await api.post(`/v1/api-keys/${made.body.id}/revoke`, {});
    const events = await allEvents(api);
    const types = events.map((e) => e.type);
    assert.deepEqual(types, [
      'api_key.revoked',
      'api_key.rotated',
      'api_key.created',
      'api_key.created', // the key of this test, made by the operator
    ]);
    assert.equal(events[1].data.object.id, rotated.body.id);
    assert.equal(events[1].data.previousKey.id, made.body.id);
    assert.equal(events[2].data.actorKeyId, key.keyId);
    assert.ok(!JSON.stringify(events).includes(made.body.secret));
    assert.ok(!JSON.stringify(events).includes('"secret"'));
  });

  it('retrieves one event as the list shows it', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    await api.post('/v1/customers', { email: 'x@example.com' });
    const [latest] = await allEvents(api);
    const one = await api.get(`/v1/events/${latest.id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, latest);
    const missing = await api.get('/v1/events/evt_nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'resource_missing');
  });
});

describe('listing events', () => {
  it('filters by type and pages with the shared cursor', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await api.post('/v1/customers', { name: `c${i}` })).body.id);
    await api.patch(`/v1/customers/${ids[0]}`, { name: 'changed' });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await api.get(
        `/v1/events?type=customer.created&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.data.length <= 2);
      seen.push(...page.body.data.map((e: any) => e.data.object.id));
      for (const e of page.body.data) assert.equal(e.type, 'customer.created');
      cursor = page.body.nextCursor;
      pages++;
      if (cursor && pages === 1) {
        // A cursor belongs to its filter.
        const other = await api.get(`/v1/events?type=customer.updated&cursor=${cursor}`);
        assert.equal(other.status, 400);
        assert.equal(other.body.error.code, 'cursor_invalid');
      }
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...ids].reverse());
  });

  it('refuses an unknown type, a bad limit and unknown parameters', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    for (const [query, param] of [
      ['type=customer.exploded', 'type'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['colour=blue', 'colour'],
    ]) {
      const res = await api.get(`/v1/events?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, 'parameter_invalid');
      assert.equal(res.body.error.param, param);
    }
  });
});

describe('event scopes', () => {
  it('lists only the types a key can read, and refuses a key that reads none', async () => {
    const admin = await createTenantWithKey(db);
    const adminApi = client(server.url, admin.secret);
    const customer = await adminApi.post('/v1/customers', { name: 'Scoped' });
    const customersOnly = await createTenantWithKey(db, {
      tenantId: admin.tenantId,
      scopes: ['customers:read'],
    });
    const keysOnly = await createTenantWithKey(db, {
      tenantId: admin.tenantId,
      scopes: ['keys:read'],
    });
    const webhooksOnly = await createTenantWithKey(db, {
      tenantId: admin.tenantId,
      scopes: ['webhooks:read', 'invoices:write'],
    });

    const asCustomers = await allEvents(client(server.url, customersOnly.secret));
    assert.deepEqual(
      asCustomers.map((e) => e.type),
      ['customer.created'],
    );
    assert.equal(asCustomers[0].data.object.id, customer.body.id);

    const asKeys = await allEvents(client(server.url, keysOnly.secret));
    assert.equal(asKeys.length, 4);
    assert.ok(asKeys.every((e) => e.type === 'api_key.created'));

    const none = await client(server.url, webhooksOnly.secret).get('/v1/events');
    assert.equal(none.status, 403);
    assert.equal(none.body.error.code, 'scope_insufficient');
    assert.match(none.body.error.message, /customers:read, invoices:read, keys:read/);

    // The full list is both.
    assert.equal((await allEvents(adminApi)).length, 5);
  });

  it('refuses a type filter or an event the key cannot read with 403 naming the scope', async () => {
    const key = await createTenantWithKey(db, { scopes: ['customers:read'] });
    const api = client(server.url, key.secret);
    const filtered = await api.get('/v1/events?type=api_key.created');
    assert.equal(filtered.status, 403);
    assert.equal(filtered.body.error.code, 'scope_insufficient');
    assert.equal(filtered.body.error.requiredScope, 'keys:read');
    const invoices = await api.get('/v1/events?type=invoice.paid');
    assert.equal(invoices.body.error.requiredScope, 'invoices:read');

    const admin = client(
      server.url,
      (await createTenantWithKey(db, { tenantId: key.tenantId })).secret,
    );
    const [keyEvent] = (await allEvents(admin)).filter((e) => e.type === 'api_key.created');
    const one = await api.get(`/v1/events/${keyEvent.id}`);
    assert.equal(one.status, 403);
    assert.equal(one.body.error.requiredScope, 'keys:read');
  });

  it('never shows an event to another tenant or environment', async () => {
    const owner = await createTenantWithKey(db);
    const ownerApi = client(server.url, owner.secret);
    await ownerApi.post('/v1/customers', { name: 'Private' });
    const [event] = await allEvents(ownerApi);
    const live = await createTenantWithKey(db, { tenantId: owner.tenantId, environment: 'live' });
    const stranger = await createTenantWithKey(db);
    for (const other of [live, stranger]) {
      const api = client(server.url, other.secret);
      const res = await api.get(`/v1/events/${event.id}`);
      assert.equal(res.status, 404, other.environment);
      assert.equal(res.body.error.code, 'resource_missing');
      const listed = await allEvents(api);
      assert.ok(listed.every((e) => e.environment === other.environment));
      assert.ok(!listed.some((e) => e.id === event.id));
    }
  });
});
