import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey, setSettings } from '../helpers.ts';
import { assertError, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { clockCustomer, createClock } from '../subscriptions/fixtures.ts';
import { createMeter, sendEvents, statuses } from './fixtures.ts';

// GET /v1/meters/{id}/summaries: buckets of the customer's local calendar, DST days included.

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const HOUR = 3_600_000;

let sequence = 0;
/** One `calls` event of `customerId` at each instant, worth `n`. */
async function sendAt(customerId: string, instants: number[], n: number | string = 1) {
  const events = instants.map((ms) => ({
    id: `sum-${(sequence += 1)}`,
    eventName: 'calls',
    customerId,
    timestamp: new Date(ms).toISOString(),
    properties: { n },
  }));
  assert.deepEqual(
    statuses(await sendEvents(api, events)),
    events.map(() => 'accepted'),
  );
}

async function summary(meterId: string, query: Record<string, string>) {
  const res = await api.get(`/v1/meters/${meterId}/summaries?${new URLSearchParams(query)}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data as { start: string; end: string; value: string }[];
}

const sum = await createMeter(api, { eventName: 'calls', aggregation: 'sum', valueProperty: 'n' });

describe('usage summaries', () => {
  it('cuts a fall-back day in Europe/Berlin into 25 hours, and days at local midnights', async () => {
    // 2026-10-25: clocks go back from 03:00 CEST to 02:00 CET.
    const clock = await createClock(api, '2026-10-27T12:00:00.000Z');
    const berlin = await clockCustomer(api, clock.id, { timeZone: 'Europe/Berlin' });
    const dayStart = Date.parse('2026-10-24T22:00:00Z'); // 00:00 CEST
    const dayEnd = Date.parse('2026-10-25T23:00:00Z'); // 00:00 CET the next day
    // One event in each real hour of the day, at half past, and two just outside it.
    const halves = Array.from({ length: 25 }, (_, i) => dayStart + i * HOUR + HOUR / 2);
    await sendAt(berlin.id, [...halves, dayStart - 1, dayEnd]);
    const hours = await summary(sum.id, {
      customerId: berlin.id,
      from: new Date(dayStart).toISOString(),
      to: new Date(dayEnd).toISOString(),
      granularity: 'hour',
    });
    assert.equal(hours.length, 25);
    hours.forEach((bucket, i) => {
      assert.equal(Date.parse(bucket.start), dayStart + i * HOUR);
      assert.equal(Date.parse(bucket.end), dayStart + (i + 1) * HOUR);
      assert.equal(bucket.value, '1');
    });
    const days = await summary(sum.id, {
      customerId: berlin.id,
      from: '2026-10-24T12:00:00.000Z',
      to: '2026-10-26T12:00:00.000Z',
      granularity: 'day',
    });
    assert.deepEqual(days, [
      { start: '2026-10-24T12:00:00.000Z', end: '2026-10-24T22:00:00.000Z', value: '1' },
      { start: '2026-10-24T22:00:00.000Z', end: '2026-10-25T23:00:00.000Z', value: '25' },
      { start: '2026-10-25T23:00:00.000Z', end: '2026-10-26T12:00:00.000Z', value: '1' },
    ]);
  });

  it('gives a spring-forward day 23 hours', async () => {
    // 2027-03-28: clocks jump from 02:00 CET to 03:00 CEST.
    const clock = await createClock(api, '2027-03-30T00:00:00.000Z');
    const berlin = await clockCustomer(api, clock.id, { timeZone: 'Europe/Berlin' });
    const dayStart = Date.parse('2027-03-27T23:00:00Z');
    await sendAt(berlin.id, [dayStart, dayStart + 22 * HOUR + HOUR - 1, dayStart + 23 * HOUR], 2);
    const days = await summary(sum.id, {
      customerId: berlin.id,
      from: new Date(dayStart).toISOString(),
      to: new Date(dayStart + 47 * HOUR).toISOString(),
      granularity: 'day',
    });
    assert.deepEqual(
      days.map((d) => [d.start, d.end, d.value]),
      [
        ['2027-03-27T23:00:00.000Z', '2027-03-28T22:00:00.000Z', '4'],
        ['2027-03-28T22:00:00.000Z', '2027-03-29T22:00:00.000Z', '2'],
      ],
    );
    const hours = await summary(sum.id, {
      customerId: berlin.id,
      from: new Date(dayStart).toISOString(),
      to: '2027-03-28T22:00:00.000Z',
      granularity: 'hour',
    });
    assert.equal(hours.length, 23);
  });

  it('follows the tenant’s time zone when the customer has none, half-hour offsets included', async () => {
    const tenant = await tenantApi(server);
    await setSettings(server.db, tenant.key.tenantId, { timeZone: 'Asia/Kolkata' });
    const meter = await createMeter(tenant.api, {
      eventName: 'calls',
      aggregation: 'count',
    });
    const clock = await createClock(tenant.api, '2027-01-15T12:00:00.000Z');
    const customer = await clockCustomer(tenant.api, clock.id);
    const res = await tenant.api.get(
      `/v1/meters/${meter.id}/summaries?${new URLSearchParams({
        customerId: customer.id,
        from: '2027-01-15T00:00:00.000Z',
        to: '2027-01-15T02:00:00.000Z',
        granularity: 'hour',
      })}`,
    );
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.data.map((b: { start: string }) => b.start),
      ['2027-01-15T00:00:00.000Z', '2027-01-15T00:30:00.000Z', '2027-01-15T01:30:00.000Z'],
    );
    const days = await tenant.api.get(
      `/v1/meters/${meter.id}/summaries?${new URLSearchParams({
        customerId: customer.id,
        from: '2027-01-14T00:00:00.000Z',
        to: '2027-01-16T00:00:00.000Z',
        granularity: 'day',
      })}`,
    );
    assert.deepEqual(
      days.body.data.map((b: { start: string }) => b.start),
      ['2027-01-14T00:00:00.000Z', '2027-01-14T18:30:00.000Z', '2027-01-15T18:30:00.000Z'],
    );
  });

  it('answers one bucket by default, 0 where there is no usage', async () => {
    const clock = await createClock(api, '2027-01-15T12:00:00.000Z');
    const ada = await clockCustomer(api, clock.id);
    assert.deepEqual(
      await summary(sum.id, {
        customerId: ada.id,
        from: '2027-01-01T00:00:00Z',
        to: '2027-01-15T00:00:00+01:00',
      }),
      [{ start: '2027-01-01T00:00:00.000Z', end: '2027-01-14T23:00:00.000Z', value: '0' }],
    );
  });

  it('refuses a bad range, too many buckets, and unknown meters and customers', async () => {
    const clock = await createClock(api, '2027-01-15T12:00:00.000Z');
    const ada = await clockCustomer(api, clock.id);
    const query = (q: Record<string, string>) =>
      api.get(
        `/v1/meters/${sum.id}/summaries?${new URLSearchParams({ customerId: ada.id, ...q })}`,
      );
    const jan = { from: '2027-01-01T00:00:00Z', to: '2027-02-01T00:00:00Z' };
    assertError(await query({ from: jan.to, to: jan.from }), 400, 'parameter_invalid', 'to');
    assertError(await query({ from: jan.from, to: jan.from }), 400, 'parameter_invalid', 'to');
    assertError(await query({ from: 'yesterday', to: jan.to }), 400, 'parameter_invalid', 'from');
    assertError(
      await query({ from: '0001-01-01T00:00:00Z', to: jan.to }),
      400,
      'parameter_invalid',
      'from',
    );
    assertError(
      await query({ from: '2026-01-01T00:00:00Z', to: jan.to, granularity: 'hour' }),
      400,
      'parameter_invalid',
      'granularity',
    );
    assertError(await query({ ...jan, granularity: 'week' }), 400, 'parameter_invalid');
    assertError(
      await api.get(`/v1/meters/${sum.id}/summaries?${new URLSearchParams(jan)}`),
      400,
      'parameter_missing',
      'customerId',
    );
    assertError(
      await query({ ...jan, customerId: 'cus_nobody' }),
      404,
      'resource_missing',
      'customerId',
    );
    assertError(
      await api.get(
        `/v1/meters/mtr_nothing/summaries?${new URLSearchParams({ customerId: ada.id, ...jan })}`,
      ),
      404,
      'resource_missing',
    );
  });

  it('needs usage:read', async () => {
    const clock = await createClock(api, '2027-01-15T12:00:00.000Z');
    const ada = await clockCustomer(api, clock.id);
    const path = `/v1/meters/${sum.id}/summaries?${new URLSearchParams({
      customerId: ada.id,
      from: '2027-01-01T00:00:00Z',
      to: '2027-01-02T00:00:00Z',
    })}`;
    const reader = await createTenantWithKey(server.db, {
      tenantId: key.tenantId,
      scopes: ['usage:read'],
    });
    assert.equal((await client(server.url, reader.secret).get(path)).status, 200);
    const other = await createTenantWithKey(server.db, {
      tenantId: key.tenantId,
      scopes: ['subscriptions:read', 'usage:write'],
    });
    assertError(await client(server.url, other.secret).get(path), 403, 'scope_insufficient');
  });
});
