import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey } from '../helpers.ts';
import { assertError, createCustomer, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { advance, clockCustomer, createClock } from '../subscriptions/fixtures.ts';
import { createMeter, sendEvents, statuses, type SentEvent } from './fixtures.ts';

// Every outcome of POST /v1/usage-events over HTTP: each event on its own, in the order sent;
// and the request refused as a whole, which accepts none.

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const customer = await createCustomer(api);
const CLOCK_TIME = '2027-01-15T12:00:00.000Z';
const clock = await createClock(api, CLOCK_TIME);
const onClock = await clockCustomer(api, clock.id);
await createMeter(api, { eventName: 'bytes_sent', aggregation: 'sum', valueProperty: 'bytes' });
await createMeter(api, { eventName: 'login', aggregation: 'unique_count', valueProperty: 'user' });

let sequence = 0;
/** A fresh event of `customer` now, with `fields` changed. */
function event(fields: Partial<SentEvent> = {}): SentEvent {
  sequence += 1;
  return {
    id: `evt-${sequence}`,
    eventName: 'api_call',
    customerId: customer.id,
    timestamp: new Date().toISOString(),
    properties: { endpoint: '/search' },
    ...fields,
  };
}

const offset = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const DAY = 86_400_000;

async function keptCount(): Promise<number> {
  const { rows } = await server.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM usage_events WHERE tenant_id = $1',
    [key.tenantId],
  );
  return rows[0]!.n;
}

describe('usage events: each event on its own', () => {
  it('accepts events and answers each in the order sent', async () => {
    const events = [event(), event({ properties: {} }), event({ properties: undefined })];
    const before = await keptCount();
    const outcomes = await sendEvents(api, events);
    assert.deepEqual(
      outcomes,
      events.map((e) => ({ id: e.id, status: 'accepted' })),
    );
    assert.equal(await keptCount(), before + 3);
  });

  it('answers duplicate for an id sent again with the same content, in any key order', async () => {
    const first = event({ properties: { a: 1, b: { c: [1, 2] } } });
    assert.deepEqual(statuses(await sendEvents(api, [first])), ['accepted']);
    const before = await keptCount();
    const again = { ...first, properties: { b: { c: [1, 2] }, a: 1.0 } };
    // The same instant written with another offset is the same content.
    const sameInstant = { ...first, timestamp: first.timestamp.replace('Z', '+00:00') };
    assert.deepEqual(statuses(await sendEvents(api, [again, sameInstant])), [
      'duplicate',
      'duplicate',
    ]);
    assert.equal(await keptCount(), before);
  });

  it('answers a second copy of an id within one batch as a duplicate, and other content as reused', async () => {
    const e = event();
    const outcomes = await sendEvents(api, [e, e, { ...e, properties: { endpoint: '/other' } }]);
    assert.deepEqual(statuses(outcomes), ['accepted', 'duplicate', 'idempotency_key_reused']);
    assert.match(outcomes[2]!.error!.message, /other content/);
  });

  it('refuses an id accepted before with other content as idempotency_key_reused', async () => {
    const e = event();
    await sendEvents(api, [e]);
    for (const changed of [
      { eventName: 'other_call' },
      { customerId: onClock.id, timestamp: CLOCK_TIME },
      { timestamp: offset(e.timestamp, -1) },
      { properties: { endpoint: '/search', extra: true } },
    ]) {
      const [outcome] = await sendEvents(api, [{ ...e, ...changed }]);
      assert.equal(outcome!.error?.code, 'idempotency_key_reused', JSON.stringify(changed));
    }
  });

  it('refuses malformed fields as parameter_invalid, each event alone', async () => {
    const good = event();
    const bad: unknown[] = [
      'not an event',
      { ...event(), id: 12 },
      { ...event(), id: '' },
      { ...event(), id: 'x'.repeat(256) },
      { ...event(), id: 'tab\there' },
      { ...event(), eventName: 'has space' },
      { ...event(), eventName: undefined },
      { ...event(), customerId: 42 },
      { ...event(), timestamp: '2027-02-30T10:00:00Z' },
      { ...event(), timestamp: '2027-01-15 10:00:00' },
      { ...event(), timestamp: '2027-01-15T10:00:00' },
      { ...event(), properties: [1, 2] },
      { ...event(), properties: null },
      { ...event(), properties: { big: 'x'.repeat(5000) } },
      { ...event(), properties: { text: 'nul\u0000here' } },
      { ...event(), properties: { text: 'lone \ud800 surrogate' } },
      { ...event(), value: 3 },
    ];
    const outcomes = await sendEvents(api, [...bad, good]);
    assert.deepEqual(statuses(outcomes), [...bad.map(() => 'parameter_invalid'), 'accepted']);
    // The id is echoed where it was a string, else null.
    assert.equal(outcomes[0]!.id, null);
    assert.equal(outcomes[1]!.id, null);
    assert.equal(outcomes[2]!.id, '');
    assert.match(outcomes[16]!.error!.message, /Unknown field: value/);
  });

  it('refuses an event without the value an active meter of its name reads', async () => {
    const sum = (bytes: unknown) => event({ eventName: 'bytes_sent', properties: { bytes } });
    const login = (user: unknown) => event({ eventName: 'login', properties: { user } });
    const outcomes = await sendEvents(api, [
      sum(12),
      sum('0.000000000001'),
      sum(5e-7),
      sum('1e3'),
      sum(-1),
      sum('01'),
      sum(0.1234567890123),
      sum(2 ** 53),
      sum('9007199254740993.5'),
      event({ eventName: 'bytes_sent', properties: {} }),
      login('ada'),
      login(7),
      login(false),
      login(null),
      login({ id: 1 }),
      login('x'.repeat(199)),
    ]);
    assert.deepEqual(statuses(outcomes), [
      'accepted',
      'accepted',
      'accepted',
      'parameter_invalid',
      'parameter_invalid',
      'parameter_invalid',
      'parameter_invalid',
      'parameter_invalid',
      'accepted',
      'parameter_invalid',
      'accepted',
      'accepted',
      'accepted',
      'parameter_invalid',
      'parameter_invalid',
      'parameter_invalid',
    ]);
    assert.match(outcomes[3]!.error!.message, /properties\.bytes must be a decimal/);
  });

  it('checks events against active meters only', async () => {
    const meter = await createMeter(api, {
      eventName: 'gauge',
      aggregation: 'max',
      valueProperty: 'level',
    });
    const reading = () => event({ eventName: 'gauge', properties: { level: 'high' } });
    assert.deepEqual(statuses(await sendEvents(api, [reading()])), ['parameter_invalid']);
    const off = await api.patch(`/v1/meters/${meter.id}`, { status: 'inactive' });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(statuses(await sendEvents(api, [reading()])), ['accepted']);
  });

  it('refuses an unknown customer, or one of another tenant or environment, as resource_missing', async () => {
    const other = await tenantApi(server);
    const theirs = await createCustomer(other.api);
    const live = await createTenantWithKey(server.db, {
      tenantId: key.tenantId,
      environment: 'live',
      scopes: ['customers:write'],
    });
    const liveCustomer = await client(server.url, live.secret).post('/v1/customers', {
      name: 'Live',
    });
    const outcomes = await sendEvents(api, [
      event({ customerId: 'cus_nobody' }),
      event({ customerId: theirs.id }),
      event({ customerId: liveCustomer.body.id }),
    ]);
    assert.deepEqual(statuses(outcomes), [
      'resource_missing',
      'resource_missing',
      'resource_missing',
    ]);
    assert.match(outcomes[0]!.error!.message, /cus_nobody/);
  });

  it('refuses timestamps more than 35 days before or 5 minutes after the customer’s time', async () => {
    const at = (ms: number) => event({ customerId: onClock.id, timestamp: offset(CLOCK_TIME, ms) });
    const outcomes = await sendEvents(api, [
      at(-35 * DAY),
      at(-35 * DAY - 1),
      at(5 * 60_000),
      at(5 * 60_000 + 1),
      // The wall clock's now is months before the customer's.
      event({ customerId: onClock.id }),
    ]);
    assert.deepEqual(statuses(outcomes), [
      'accepted',
      'timestamp_out_of_range',
      'accepted',
      'timestamp_out_of_range',
      'timestamp_out_of_range',
    ]);
    assert.match(outcomes[1]!.error!.message, new RegExp(CLOCK_TIME));
    const old = event({ timestamp: offset(new Date().toISOString(), -36 * DAY) });
    assert.deepEqual(statuses(await sendEvents(api, [old])), ['timestamp_out_of_range']);
  });

  it('answers a retry of an accepted event as a duplicate even once it is out of range', async () => {
    const ownClock = await createClock(api, CLOCK_TIME);
    const ada = await clockCustomer(api, ownClock.id);
    const e = event({ customerId: ada.id, timestamp: CLOCK_TIME });
    assert.deepEqual(statuses(await sendEvents(api, [e])), ['accepted']);
    await advance(api, ownClock.id, offset(CLOCK_TIME, 40 * DAY));
    const fresh = { ...e, id: `${e.id}-fresh` };
    assert.deepEqual(statuses(await sendEvents(api, [e, fresh])), [
      'duplicate',
      'timestamp_out_of_range',
    ]);
    assert.deepEqual(statuses(await sendEvents(api, [{ ...e, properties: {} }])), [
      'idempotency_key_reused',
    ]);
  });

  it('takes a refused id again once it is fixed', async () => {
    const e = event({ customerId: 'cus_nobody' });
    assert.deepEqual(statuses(await sendEvents(api, [e])), ['resource_missing']);
    assert.deepEqual(statuses(await sendEvents(api, [{ ...e, customerId: customer.id }])), [
      'accepted',
    ]);
  });

  it('counts a batch sent 8 times at once exactly once, and answers every copy alike', async () => {
    const batch = Array.from({ length: 200 }, () => event());
    const before = await keptCount();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => api.post('/v1/usage-events', { events: batch })),
    );
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    assert.equal(await keptCount(), before + batch.length);
    batch.forEach((e, i) => {
      const seen = answers.map((a) => a.body.data[i]);
      assert.ok(seen.every((o: { id: string }) => o.id === e.id));
      assert.deepEqual(
        seen.map((o: { status: string }) => o.status).sort(),
        ['accepted', ...Array(7).fill('duplicate')],
        e.id,
      );
    });
  });

  it('replays the answer under an Idempotency-Key', async () => {
    const events = [event()];
    const headers = { 'idempotency-key': `usage-${sequence}` };
    const first = await api.post('/v1/usage-events', { events }, headers);
    const second = await api.post('/v1/usage-events', { events }, headers);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(statuses(first.body.data), ['accepted']);
  });
});

describe('usage events: a request refused as a whole accepts none', () => {
  const refusals: [string, unknown, number, string, string?][] = [
    [
      'more than 1,000 events',
      { events: Array.from({ length: 1001 }, () => event()) },
      400,
      'parameter_invalid',
      'events',
    ],
    ['no events', { events: [] }, 400, 'parameter_invalid', 'events'],
    [
      'events that are not an array',
      { events: { 0: event() } },
      400,
      'parameter_invalid',
      'events',
    ],
    ['no events field', {}, 400, 'parameter_missing', 'events'],
    ['an unknown field', { events: [event()], dryRun: true }, 400, 'parameter_invalid', 'dryRun'],
    ['a body that is not an object', [event()], 400, 'body_invalid'],
  ];
  for (const [what, body, status, code, param] of refusals) {
    it(`refuses ${what}`, async () => {
      const before = await keptCount();
      assertError(await api.post('/v1/usage-events', body), status, code, param);
      assert.equal(await keptCount(), before);
    });
  }

  it('refuses a query string, a request without a key and one without usage:write', async () => {
    const before = await keptCount();
    const body = { events: [event()] };
    assertError(
      await api.post('/v1/usage-events?dryRun=1', body),
      400,
      'parameter_invalid',
      'dryRun',
    );
    assertError(
      await client(server.url, '').post('/v1/usage-events', body),
      401,
      'api_key_missing',
    );
    const reader = await createTenantWithKey(server.db, {
      tenantId: key.tenantId,
      scopes: ['usage:read', 'subscriptions:write'],
    });
    const res = await client(server.url, reader.secret).post('/v1/usage-events', body);
    assertError(res, 403, 'scope_insufficient');
    assert.equal(res.body.error.requiredScope, 'usage:write');
    assert.equal(await keptCount(), before);
  });

  it('lets a key with only usage:write send events and do nothing else', async () => {
    const ingest = await createTenantWithKey(server.db, {
      tenantId: key.tenantId,
      scopes: ['usage:write'],
    });
    const job = client(server.url, ingest.secret);
    assert.deepEqual(statuses(await sendEvents(job, [event()])), ['accepted']);
    const meter = await createMeter(api, { eventName: 'api_call', aggregation: 'count' });
    const from = offset(new Date().toISOString(), -DAY);
    const to = offset(new Date().toISOString(), DAY);
    for (const [method, path, body] of [
      ['GET', '/v1/meters'],
      ['GET', `/v1/meters/${meter.id}`],
      ['POST', '/v1/meters', { eventName: 'x', aggregation: 'count', displayName: 'X' }],
      ['PATCH', `/v1/meters/${meter.id}`, { status: 'inactive' }],
      ['GET', `/v1/meters/${meter.id}/summaries?customerId=${customer.id}&from=${from}&to=${to}`],
      ['GET', '/v1/customers'],
      ['POST', '/v1/customers', { name: 'Eve' }],
      ['GET', '/v1/invoices'],
      ['GET', '/v1/events'],
      ['GET', '/v1/subscriptions'],
    ] as const) {
      const res =
        method === 'GET'
          ? await job.get(path)
          : method === 'POST'
            ? await job.post(path, body)
            : await job.patch(path, body);
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
    }
  });
});
