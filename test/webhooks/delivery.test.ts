import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey, startTestApp, waitFor } from '../helpers.ts';
import { startReceiver } from './receiver.ts';

// The server's own worker delivers (runWorker is on by default); test endpoints may use
// http on loopback, where the receivers of these tests listen.
const server = await startTestApp({ webhooksAllowLoopback: true });
const db = server.db;

async function setUp(enabledEvents: string[] = ['*'], path = '/hooks') {
  const key = await createTenantWithKey(db);
  const api = client(server.url, key.secret);
  const receiver = await startReceiver();
  const endpoint = await api.post('/v1/webhook-endpoints', {
    url: receiver.url(path),
    enabledEvents,
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  receiver.expectSecret(path, endpoint.body.secret);
  return { key, api, receiver, endpoint: endpoint.body };
}

async function deliveries(api: ReturnType<typeof client>, endpointId: string): Promise<any[]> {
  const res = await api.get(`/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** Makes every pending delivery of the endpoint due now, instead of waiting minutes. */
async function dueNow(endpointId: string): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET next_attempt_at = now()
      WHERE endpoint_id = $1 AND status = 'pending'`,
    [endpointId],
  );
}

describe('webhook delivery', () => {
  it('delivers every event, signed, to each endpoint that takes its type', async () => {
    const { api, receiver, endpoint } = await setUp(['*'], '/all');
    const updates = await api.post('/v1/webhook-endpoints', {
      url: receiver.url('/updates'),
      enabledEvents: ['customer.updated'],
    });
    receiver.expectSecret('/updates', updates.body.secret);
    const off = await api.post('/v1/webhook-endpoints', {
      url: receiver.url('/off'),
      enabledEvents: ['*'],
      disabled: true,
    });
    const customer = await api.post('/v1/customers', { name: 'Hooked' });
    await api.patch(`/v1/customers/${customer.body.id}`, { name: 'Hooked again' });

    await waitFor(
      () => receiver.at('/all').length >= 2 && receiver.at('/updates').length >= 1,
      'deliveries',
    );
    const events = (await api.get('/v1/events?limit=2')).body.data;
    assert.deepEqual(
      receiver
        .at('/all')
        .map((m) => m.id)
        .sort(),
      events.map((e: any) => e.id).sort(),
    );
    assert.deepEqual(
      receiver.at('/updates').map((m) => m.body.type),
      ['customer.updated'],
    );
    assert.ok(
      receiver.received.every((m) => m.verified),
      'every signature verifies',
    );
    for (const message of receiver.received) {
      const event = events.find((e: any) => e.id === message.id);
      // Standard Webhooks body: { type, timestamp, data, actor }, webhook-id is the event id.
      assert.deepEqual(message.body, {
        type: event.type,
        timestamp: event.createdAt,
        data: event.data,
        actor: event.actor,
      });
      assert.equal(event.actor.type, 'api_key');
    }
    assert.equal(receiver.at('/off').length, 0);
    assert.deepEqual(await deliveries(api, off.body.id), []);

    await waitFor(
      async () => (await deliveries(api, endpoint.id)).every((d) => d.status === 'succeeded'),
      'succeeded deliveries',
    );
    const listed = await deliveries(api, endpoint.id);
    assert.equal(listed.length, 2);
    for (const delivery of listed) {
      assert.match(delivery.id, /^wd_/);
      assert.equal(delivery.object, 'webhook_delivery');
      assert.equal(delivery.endpointId, endpoint.id);
      assert.equal(delivery.attemptCount, 1);
      assert.equal(delivery.nextAttemptAt, null);
      assert.equal(delivery.attempts.length, 1);
      assert.equal(delivery.attempts[0].attempt, 1);
      assert.equal(delivery.attempts[0].responseStatus, 200);
      assert.equal(delivery.attempts[0].error, null);
      assert.ok(delivery.attempts[0].durationMs >= 0);
    }
  });

  it('delivers everything to a receiver that was down, once it is back', async () => {
    const { api, receiver, endpoint } = await setUp();
    await receiver.down();
    for (let i = 0; i < 3; i++) await api.post('/v1/customers', { name: `offline ${i}` });
    await waitFor(async () => {
      const list = await deliveries(api, endpoint.id);
      return list.length === 3 && list.every((d) => d.attempts.length === 1);
    }, 'failed first attempts');
    for (const delivery of await deliveries(api, endpoint.id)) {
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.attempts[0].responseStatus, null);
      assert.match(delivery.attempts[0].error, /connection refused/);
      // The schedule's first step: about 5 s after the attempt (±10 %).
      const wait =
        Date.parse(delivery.nextAttemptAt) - Date.parse(delivery.attempts[0].attemptedAt);
      assert.ok(wait >= 4400 && wait <= 5600, `next attempt after ${wait} ms`);
    }
    assert.equal(receiver.received.length, 0);

    await receiver.up();
    await dueNow(endpoint.id);
    await waitFor(() => receiver.received.length >= 3, 'redelivery');
    const events = (await api.get('/v1/events?type=customer.created')).body.data;
    assert.deepEqual(
      receiver.received.map((m) => m.id).sort(),
      events.map((e: any) => e.id).sort(),
    );
    assert.ok(receiver.received.every((m) => m.verified));
    await waitFor(
      async () => (await deliveries(api, endpoint.id)).every((d) => d.status === 'succeeded'),
      'succeeded deliveries',
    );
    for (const delivery of await deliveries(api, endpoint.id)) {
      assert.deepEqual(
        delivery.attempts.map((a: any) => [a.attempt, a.responseStatus]),
        [
          [1, null],
          [2, 200],
        ],
      );
    }
  });

  it('retries a failing receiver, honours its Retry-After and keeps the excerpt to 1 KB', async () => {
    const { api, receiver, endpoint } = await setUp();
    receiver.respondWith(() => ({
      status: 503,
      headers: { 'retry-after': '120' },
      body: 'x'.repeat(5000),
    }));
    await api.post('/v1/customers', { name: 'Busy' });
    const [delivery] = await waitFor(async () => {
      const list = await deliveries(api, endpoint.id);
      return list[0]?.attempts.length === 1 ? list : null;
    }, 'first attempt');
    const [attempt] = delivery.attempts;
    assert.equal(attempt.responseStatus, 503);
    assert.equal(attempt.error, 'the receiver answered 503');
    assert.equal(attempt.responseBody, 'x'.repeat(1024));
    const wait = Date.parse(delivery.nextAttemptAt) - Date.parse(attempt.attemptedAt);
    assert.ok(wait >= 119_000 && wait <= 122_000, `next attempt after ${wait} ms`);

    receiver.respondWith(() => ({ status: 500 }));
    await dueNow(endpoint.id);
    await waitFor(
      async () => (await deliveries(api, endpoint.id))[0].attempts.length === 2,
      'second attempt',
    );
    const [second] = await deliveries(api, endpoint.id);
    // After the second failure the schedule says about 5 minutes.
    const wait2 = Date.parse(second.nextAttemptAt) - Date.parse(second.attempts[1].attemptedAt);
    assert.ok(wait2 >= 270_000 && wait2 <= 330_000, `next attempt after ${wait2} ms`);
    assert.equal(second.status, 'pending');
    // The same webhook-id on every retry.
    assert.equal(new Set(receiver.received.map((m) => m.id)).size, 1);
  });

  it('gives up after the last step of the schedule', async () => {
    const { api, receiver, endpoint } = await setUp();
    receiver.respondWith(() => ({ status: 500 }));
    await api.post('/v1/customers', { name: 'Doomed' });
    await waitFor(
      async () => (await deliveries(api, endpoint.id))[0]?.attemptCount === 1,
      'attempt',
    );
    // As if the first nine attempts had failed over three days.
    await db.query(
      `UPDATE webhook_deliveries SET attempt_count = 9, next_attempt_at = now() WHERE endpoint_id = $1`,
      [endpoint.id],
    );
    await waitFor(
      async () => (await deliveries(api, endpoint.id))[0].status === 'failed',
      'failed',
    );
    const [delivery] = await deliveries(api, endpoint.id);
    assert.equal(delivery.attemptCount, 10);
    assert.equal(delivery.nextAttemptAt, null);
    // One failing delivery does not disable the endpoint.
    assert.equal((await api.get(`/v1/webhook-endpoints/${endpoint.id}`)).body.disabled, false);
  });

  it('disables the endpoint at once on 410 Gone', async () => {
    const { api, receiver, endpoint } = await setUp();
    receiver.respondWith(() => ({ status: 410 }));
    await api.post('/v1/customers', { name: 'Gone' });
    await waitFor(
      async () => (await api.get(`/v1/webhook-endpoints/${endpoint.id}`)).body.disabled,
      'disabled',
    );
    const fetched = await api.get(`/v1/webhook-endpoints/${endpoint.id}`);
    assert.equal(fetched.body.disabledReason, 'gone');
    const [delivery] = await deliveries(api, endpoint.id);
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.attempts[0].responseStatus, 410);

    // Nothing more is queued for it, and a retry waits for it to be enabled again.
    await api.post('/v1/customers', { name: 'Unheard' });
    assert.equal((await deliveries(api, endpoint.id)).length, 1);
    const refused = await api.post(
      `/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`,
    );
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'state_invalid');

    receiver.respondWith(() => ({ status: 204 }));
    const enabled = await api.patch(`/v1/webhook-endpoints/${endpoint.id}`, { disabled: false });
    assert.equal(enabled.body.disabledReason, null);
    const retried = await api.post(
      `/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`,
    );
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.status, 'pending');
    await waitFor(
      async () => (await deliveries(api, endpoint.id))[0].status === 'succeeded',
      'retried',
    );
    assert.deepEqual(
      receiver.received.map((m) => m.id),
      [delivery.eventId, delivery.eventId],
    );
  });

  it('disables an endpoint that has failed for 5 days and cancels what was pending', async () => {
    const { api, receiver, endpoint } = await setUp();
    receiver.respondWith(() => ({ status: 500 }));
    await api.post('/v1/customers', { name: 'first' });
    await waitFor(
      async () => (await deliveries(api, endpoint.id))[0]?.attemptCount === 1,
      'attempt',
    );
    await api.post('/v1/customers', { name: 'second' });
    await waitFor(
      async () => (await deliveries(api, endpoint.id)).every((d) => d.attemptCount === 1),
      'attempts',
    );
    await db.query(
      `UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1`,
      [endpoint.id],
    );
    const [newest, oldest] = await deliveries(api, endpoint.id);
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1`, [
      oldest.id,
    ]);
    await waitFor(
      async () => (await api.get(`/v1/webhook-endpoints/${endpoint.id}`)).body.disabled,
      'disabled',
    );
    assert.equal(
      (await api.get(`/v1/webhook-endpoints/${endpoint.id}`)).body.disabledReason,
      'failing',
    );
    const after = await deliveries(api, endpoint.id);
    assert.deepEqual(
      after.map((d) => [d.id, d.status]),
      [
        [newest.id, 'cancelled'],
        [oldest.id, 'failed'],
      ],
    );
  });

  it('resends a delivery by hand with the same webhook-id', async () => {
    const { api, receiver, endpoint } = await setUp();
    await api.post('/v1/customers', { name: 'Again' });
    await waitFor(
      async () => (await deliveries(api, endpoint.id))[0]?.status === 'succeeded',
      'delivered',
    );
    const [delivery] = await deliveries(api, endpoint.id);
    const retried = await api.post(
      `/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`,
      undefined,
      { 'idempotency-key': 'resend-1' },
    );
    assert.equal(retried.status, 200, retried.text);
    await waitFor(() => receiver.received.length === 2, 'resent');
    assert.equal(receiver.received[0]!.id, receiver.received[1]!.id);
    assert.ok(receiver.received.every((m) => m.verified));
    await waitFor(
      async () => (await deliveries(api, endpoint.id))[0].attempts.length === 2,
      'recorded',
    );
    const missing = await api.post(`/v1/webhook-endpoints/${endpoint.id}/deliveries/wd_nope/retry`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'resource_missing');
  });
});
