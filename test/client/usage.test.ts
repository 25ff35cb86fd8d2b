import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BillingApiError,
  BillingClient,
  type Meter,
  type UsageEvent,
} from '../../clients/typescript/src/index.ts';
import { createTenantWithKey, startTestApp } from '../helpers.ts';

// The typed client's meters and usage events against the real server: a meter's life, a batch
// sent twice (each event counted once), its summaries, and a key that may only send usage.

const server = await startTestApp();
const scopes = [
  'subscriptions:read',
  'subscriptions:write',
  'customers:write',
  'usage:read',
  'usage:write',
];
const key = await createTenantWithKey(server.db, { scopes });
const client = new BillingClient({ apiKey: key.secret, baseUrl: server.url, baseDelayMs: 20 });

describe('the client: meters and usage events', () => {
  it('creates, reads, lists and updates a meter', async () => {
    const meter: Meter = await client.meters.create({
      eventName: 'storage',
      aggregation: 'max',
      valueProperty: 'gigabytes',
      displayName: 'Storage used',
    });
    assert.match(meter.id, /^mtr_/);
    assert.deepEqual(await client.meters.get(meter.id), meter);
    const listed = await client.meters.list({ limit: 1 }).toArray();
    assert.ok(listed.some((m) => m.id === meter.id));
    const off = await client.meters.update(meter.id, { status: 'inactive' });
    assert.equal(off.status, 'inactive');
    await assert.rejects(
      client.meters.update(meter.id, { eventName: 'other' } as never),
      (error: unknown) =>
        error instanceof BillingApiError &&
        error.code === 'parameter_invalid' &&
        error.param === 'eventName',
    );
  });

  it('sends a batch twice, counts each event once and summarises it by day', async () => {
    const clock = await client.testClocks.create({ frozenTime: '2027-01-15T12:00:00.000Z' });
    const customer = await client.customers.create({
      name: 'Ada Lovelace',
      testClockId: clock.id,
      timeZone: 'Europe/Berlin',
    });
    const meter = await client.meters.create({
      eventName: 'api_request',
      aggregation: 'sum',
      valueProperty: 'units',
      displayName: 'API units',
    });
    const events: UsageEvent[] = [
      ['a', '2027-01-14T10:00:00Z', '1.5'],
      ['b', '2027-01-14T23:30:00Z', 2],
      ['c', '2027-01-15T11:00:00Z', '0.25'],
    ].map(([id, timestamp, units]) => ({
      id: `client-${id}`,
      eventName: 'api_request',
      customerId: customer.id,
      timestamp: timestamp as string,
      properties: { units },
    }));
    const first = await client.usageEvents.send(events);
    assert.deepEqual(
      first.data.map((o) => o.status),
      ['accepted', 'accepted', 'accepted'],
    );
    const again = await client.usageEvents.send(events);
    assert.deepEqual(
      again.data.map((o) => o.status),
      ['duplicate', 'duplicate', 'duplicate'],
    );
    const summary = await client.meters.summaries(meter.id, {
      customerId: customer.id,
      from: '2027-01-13T23:00:00.000Z',
      to: '2027-01-15T23:00:00.000Z',
      granularity: 'day',
    });
    // 23:30 UTC on the 14th is already the 15th in Berlin.
    assert.deepEqual(summary.data, [
      { start: '2027-01-13T23:00:00.000Z', end: '2027-01-14T23:00:00.000Z', value: '1.5' },
      { start: '2027-01-14T23:00:00.000Z', end: '2027-01-15T23:00:00.000Z', value: '2.25' },
    ]);
  });

  it('lets an ingestion key send events and nothing else', async () => {
    const ingest = await createTenantWithKey(server.db, {
      tenantId: key.tenantId,
      scopes: ['usage:write'],
    });
    const job = new BillingClient({ apiKey: ingest.secret, baseUrl: server.url, maxRetries: 0 });
    const [outcome] = (
      await job.usageEvents.send([
        {
          id: 'job-1',
          eventName: 'heartbeat',
          customerId: 'cus_unknown',
          timestamp: new Date().toISOString(),
        },
      ])
    ).data;
    assert.equal(outcome!.error?.code, 'resource_missing');
    await assert.rejects(
      job.meters.list().toArray(),
      (error: unknown) => error instanceof BillingApiError && error.code === 'scope_insufficient',
    );
  });
});
