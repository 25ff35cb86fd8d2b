import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey } from '../helpers.ts';
import { assertError, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { createMeter } from './fixtures.ts';

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);

const stamps = { id: undefined, createdAt: undefined, updatedAt: undefined };

describe('meters', () => {
  it('creates a meter of each aggregation and reads it back', async () => {
    for (const aggregation of ['sum', 'max', 'last', 'unique_count'] as const) {
      const meter = await createMeter(api, {
        eventName: 'storage',
        aggregation,
        valueProperty: 'gigabytes',
        displayName: 'Storage',
      });
      assert.match(meter.id, /^mtr_/);
      assert.deepEqual(
        { ...meter, ...stamps },
        {
          ...stamps,
          object: 'meter',
          eventName: 'storage',
          aggregation,
          valueProperty: 'gigabytes',
          displayName: 'Storage',
          status: 'active',
          environment: 'test',
        },
      );
      assert.deepEqual((await api.get(`/v1/meters/${meter.id}`)).body, meter);
    }
    const count = await createMeter(api, {
      eventName: 'api_call',
      aggregation: 'count',
      status: 'inactive',
    });
    assert.equal(count.valueProperty, null);
    assert.equal(count.status, 'inactive');
  });

  it('needs valueProperty except for count, which takes none', async () => {
    const base = { eventName: 'e', displayName: 'E' };
    for (const aggregation of ['sum', 'max', 'last', 'unique_count']) {
      assertError(
        await api.post('/v1/meters', { ...base, aggregation }),
        400,
        'parameter_missing',
        'valueProperty',
      );
    }
    assertError(
      await api.post('/v1/meters', { ...base, aggregation: 'count', valueProperty: 'n' }),
      400,
      'parameter_invalid',
      'valueProperty',
    );
  });

  it('refuses an unknown aggregation, an event name with spaces and a missing display name', async () => {
    const body = { eventName: 'e', aggregation: 'count', displayName: 'E' };
    assertError(
      await api.post('/v1/meters', { ...body, aggregation: 'avg' }),
      400,
      'parameter_invalid',
      'aggregation',
    );
    assertError(
      await api.post('/v1/meters', { ...body, eventName: 'api call' }),
      400,
      'parameter_invalid',
      'eventName',
    );
    assertError(
      await api.post('/v1/meters', { ...body, displayName: undefined }),
      400,
      'parameter_missing',
      'displayName',
    );
  });

  it('changes only the display name and the status', async () => {
    const meter = await createMeter(api, {
      eventName: 'e',
      aggregation: 'sum',
      valueProperty: 'n',
    });
    const changed = await api.patch(`/v1/meters/${meter.id}`, {
      displayName: 'Renamed',
      status: 'inactive',
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.displayName, 'Renamed');
    assert.equal(changed.body.status, 'inactive');
    assert.equal(changed.body.eventName, 'e');
    for (const [field, value] of [
      ['eventName', 'other'],
      ['aggregation', 'max'],
      ['valueProperty', 'm'],
    ] as const) {
      const res = await api.patch(`/v1/meters/${meter.id}`, { status: 'active', [field]: value });
      assertError(res, 400, 'parameter_invalid', field);
      assert.match(res.body.error.message, /cannot change/);
    }
    assertError(
      await api.patch(`/v1/meters/${meter.id}`, { color: 'red' }),
      400,
      'parameter_invalid',
      'color',
    );
    assert.equal((await api.get(`/v1/meters/${meter.id}`)).body.status, 'inactive');
  });

  it('lists meters newest first, page by page', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await createMeter(api, { eventName: `paged_${i}`, aggregation: 'count' }));
    }
    const first = await api.get('/v1/meters?limit=2');
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.data.map((m: { id: string }) => m.id),
      [made[2]!.id, made[1]!.id],
    );
    const next = await api.get(`/v1/meters?limit=2&cursor=${first.body.nextCursor}`);
    assert.equal(next.body.data[0].id, made[0]!.id);
  });

  it('answers 404 for a meter of another tenant or environment', async () => {
    const meter = await createMeter(api, { eventName: 'e', aggregation: 'count' });
    const stranger = await tenantApi(server);
    assertError(await stranger.api.get(`/v1/meters/${meter.id}`), 404, 'resource_missing');
    assertError(
      await stranger.api.patch(`/v1/meters/${meter.id}`, { status: 'inactive' }),
      404,
      'resource_missing',
    );
    const live = await createTenantWithKey(server.db, {
      tenantId: key.tenantId,
      environment: 'live',
    });
    assertError(
      await client(server.url, live.secret).get(`/v1/meters/${meter.id}`),
      404,
      'resource_missing',
    );
    assertError(await api.get('/v1/meters/mtr_nothing'), 404, 'resource_missing');
  });

  it('needs subscriptions:write to change and subscriptions:read to read', async () => {
    const meter = await createMeter(api, { eventName: 'e', aggregation: 'count' });
    const reader = await createTenantWithKey(server.db, {
      tenantId: key.tenantId,
      scopes: ['subscriptions:read', 'usage:read'],
    });
    const read = client(server.url, reader.secret);
    assert.equal((await read.get(`/v1/meters/${meter.id}`)).status, 200);
    const body = { eventName: 'e', aggregation: 'count', displayName: 'E' };
    assertError(await read.post('/v1/meters', body), 403, 'scope_insufficient');
    assertError(
      await read.patch(`/v1/meters/${meter.id}`, { status: 'inactive' }),
      403,
      'scope_insufficient',
    );
    const usageOnly = await createTenantWithKey(server.db, {
      tenantId: key.tenantId,
      scopes: ['usage:read'],
    });
    assertError(
      await client(server.url, usageOnly.secret).get('/v1/meters'),
      403,
      'scope_insufficient',
    );
  });
});
