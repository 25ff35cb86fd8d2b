import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceMissingError } from '../../src/errors.ts';
import type { TenantScope } from '../../src/tenancy.ts';
import { aggregateUsage, getMeter, getMeters } from '../../src/usage/service.ts';
import { startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { clockCustomer, createClock } from '../subscriptions/fixtures.ts';
import { createMeter, sendEvents, statuses, usageOf } from './fixtures.ts';

// A meter's aggregation of a customer's events over [from, to): exact decimals, whole hours
// from the rollups and partial hours from the events, whichever meter, whenever made.

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const scope: TenantScope = { tenantId: key.tenantId, environment: 'test' };
const NOW = '2027-01-15T12:00:00.000Z';
const clock = await createClock(api, NOW);

let sequence = 0;
/** Sends `name` events of `customerId` at the given times (UTC, on 2027-01-15) with `values`. */
async function send(
  customerId: string,
  name: string,
  readings: [time: string, properties: Record<string, unknown>][],
) {
  const events = readings.map(([time, properties]) => ({
    id: `agg-${(sequence += 1)}`,
    eventName: name,
    customerId,
    timestamp: `2027-01-15T${time}Z`,
    properties,
  }));
  const outcomes = await sendEvents(api, events);
  assert.deepEqual(
    statuses(outcomes),
    events.map(() => 'accepted'),
  );
}

const at = (time: string) => new Date(`2027-01-15T${time}Z`);
const aggregate = (meterId: string, customerId: string, from: string, to: string) =>
  aggregateUsage(server.db, scope, meterId, customerId, at(from), at(to));

async function meterOf(name: string, aggregation: string, valueProperty?: string) {
  return (await createMeter(api, { eventName: name, aggregation, valueProperty })).id;
}

describe('aggregation', () => {
  it('sums, counts, maximises and takes the last value exactly', async () => {
    const ada = await clockCustomer(api, clock.id);
    const sum = await meterOf('transfer', 'sum', 'gb');
    const count = await meterOf('transfer', 'count');
    const max = await meterOf('transfer', 'max', 'gb');
    const last = await meterOf('transfer', 'last', 'gb');
    await send(ada.id, 'transfer', [
      ['09:10:00.000', { gb: 0.1 }],
      ['11:50:00.000', { gb: '0.000000000001' }],
      ['09:20:00.000', { gb: '0.2' }],
      ['10:00:00.000', { gb: '12345678901234567890.123456789012' }],
      ['08:59:59.999', { gb: 7 }],
    ]);
    const whole = ['08:00:00', '12:00:00'] as const;
    assert.equal(await aggregate(sum, ada.id, ...whole), '12345678901234567897.423456789013');
    assert.equal(await aggregate(count, ada.id, ...whole), '5');
    assert.equal(await aggregate(max, ada.id, ...whole), '12345678901234567890.123456789012');
    // The latest timestamp wins, whatever order the events came in.
    assert.equal(await aggregate(last, ada.id, ...whole), '0.000000000001');
    // 0.1 + 0.2 is 0.3, not 0.30000000000000004.
    assert.equal(await aggregate(sum, ada.id, '09:00:00', '09:30:00'), '0.3');
    assert.equal(await aggregate(last, ada.id, '09:00:00', '09:59:00'), '0.2');
  });

  it('counts distinct values of any JSON scalar, each once across hours', async () => {
    const ada = await clockCustomer(api, clock.id);
    const unique = await meterOf('login', 'unique_count', 'user');
    await send(ada.id, 'login', [
      ['08:05:00.000', { user: 'ada' }],
      ['08:06:00.000', { user: 'ada' }],
      ['09:30:00.000', { user: 'ada' }],
      ['10:30:00.000', { user: 'grace' }],
      ['10:31:00.000', { user: 7 }],
      ['10:32:00.000', { user: '7' }],
      ['11:45:00.000', { user: true }],
    ]);
    assert.equal(await aggregate(unique, ada.id, '08:00:00', '12:00:00'), '5');
    assert.equal(await aggregate(unique, ada.id, '08:00:00', '10:00:00'), '1');
    assert.equal(await aggregate(unique, ada.id, '08:05:30', '10:31:30'), '3');
  });

  it('adds the partial hours at a range’s ends to the whole hours between them', async () => {
    const ada = await clockCustomer(api, clock.id);
    const sum = await meterOf('cpu', 'sum', 's');
    await send(ada.id, 'cpu', [
      ['08:59:59.999', { s: 1 }],
      ['09:00:00.000', { s: 10 }],
      ['09:15:00.000', { s: 100 }],
      ['09:45:00.000', { s: 1000 }],
      ['10:30:00.000', { s: 10000 }],
      ['11:15:00.000', { s: 100000 }],
    ]);
    const cases: [string, string, string][] = [
      ['09:00:00', '10:00:00', '1110'],
      ['09:00:00.001', '10:00:00', '1100'],
      ['09:15:00', '11:15:00', '11100'],
      ['09:15:00.001', '11:15:00.001', '111000'],
      ['08:59:59.999', '09:00:00', '1'],
      ['09:20:00', '09:40:00', '0'],
      ['10:00:00', '10:00:00', '0'],
      ['11:00:00', '09:00:00', '0'],
    ];
    for (const [from, to, expected] of cases) {
      assert.equal(await aggregate(sum, ada.id, from, to), expected, `[${from}, ${to})`);
    }
  });

  it('answers 0 without events, for last too, and keeps customers apart', async () => {
    const ada = await clockCustomer(api, clock.id);
    const grace = await clockCustomer(api, clock.id);
    const last = await meterOf('seats', 'last', 'n');
    assert.equal(await aggregate(last, ada.id, '00:00:00', '12:00:00'), '0');
    await send(grace.id, 'seats', [['10:00:00.000', { n: 4 }]]);
    assert.equal(await aggregate(last, ada.id, '00:00:00', '12:00:00'), '0');
    assert.equal(await aggregate(last, grace.id, '00:00:00', '12:00:00'), '4');
  });

  it('measures the events a meter finds when it is created, and those that follow', async () => {
    const ada = await clockCustomer(api, clock.id);
    await send(ada.id, 'render', [
      ['08:10:00.000', { frames: '2.5' }],
      ['08:20:00.000', { frames: 'lots' }],
      ['09:10:00.000', {}],
      ['11:59:00.000', { frames: 4 }],
    ]);
    const sum = await meterOf('render', 'sum', 'frames');
    const count = await meterOf('render', 'count');
    assert.equal(await aggregate(sum, ada.id, '08:00:00', '12:00:00'), '6.5');
    assert.equal(await aggregate(count, ada.id, '08:00:00', '12:00:00'), '4');
    await send(ada.id, 'render', [['08:15:00.000', { frames: 1 }]]);
    assert.equal(await aggregate(sum, ada.id, '08:00:00', '12:00:00'), '7.5');
    assert.equal(await usageOf(api, sum, ada.id, `${at('08:00:00').toISOString()}`, NOW), '7.5');
  });

  it('keeps measuring with an inactive meter', async () => {
    const ada = await clockCustomer(api, clock.id);
    const max = await meterOf('temp', 'max', 'c');
    await send(ada.id, 'temp', [['09:00:00.000', { c: 3 }]]);
    assert.equal((await api.patch(`/v1/meters/${max}`, { status: 'inactive' })).status, 200);
    await send(ada.id, 'temp', [['10:00:00.000', { c: 5 }]]);
    assert.equal(await aggregate(max, ada.id, '00:00:00', '12:00:00'), '5');
  });

  it('gives meters by id for billing, and refuses an unknown one', async () => {
    const count = await meterOf('api', 'count');
    const meters = await getMeters(server.db, scope, [count, 'mtr_nothing']);
    assert.deepEqual([...meters.keys()], [count]);
    assert.deepEqual(meters.get(count), await getMeter(server.db, scope, count));
    await assert.rejects(
      aggregate('mtr_nothing', 'cus_x', '00:00:00', '01:00:00'),
      ResourceMissingError,
    );
    const stranger = {
      tenantId: (await tenantApi(server)).key.tenantId,
      environment: 'test' as const,
    };
    await assert.rejects(getMeter(server.db, stranger, count), ResourceMissingError);
  });
});
