import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { WebhookWorker, type WorkerOptions } from '../../src/webhooks/worker.ts';
import {
  client,
  createTenantWithKey,
  createTestDatabase,
  databaseEnv,
  startTestServer,
  testPool,
  waitFor,
} from '../helpers.ts';
import { startReceiver } from './receiver.ts';

// An API server without a worker of its own: the tests start and stop workers themselves.
const url = await createTestDatabase();
const server = await startTestServer(url, { webhooksAllowLoopback: true, runWorker: false });
const db = server.db;

const running: WebhookWorker[] = [];
after(() => Promise.all(running.map((w) => w.stop())));

/** A worker as another instance would run it: its own pool on the same database. */
function startWorker(options: Partial<WorkerOptions> = {}): WebhookWorker {
  const pool = testPool(url, 4);
  after(() => pool.end());
  const worker = new WebhookWorker(pool, {
    allowLoopback: true,
    secrets: server.secrets,
    pollMs: 50,
    ...options,
  });
  running.push(worker);
  worker.start();
  return worker;
}

async function setUp(path: string) {
  const key = await createTenantWithKey(db);
  const api = client(server.url, key.secret);
  const receiver = await startReceiver();
  const endpoint = await api.post('/v1/webhook-endpoints', {
    url: receiver.url(path),
    enabledEvents: ['customer.created'],
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  receiver.expectSecret(path, endpoint.body.secret);
  return { api, receiver, endpoint: endpoint.body };
}

async function attemptsOf(endpointId: string) {
  const { rows } = await db.query<{ status: string; attempt_count: number; attempts: number }>(
    `SELECT d.status, d.attempt_count,
            (SELECT count(*)::int FROM webhook_attempts a
              WHERE a.tenant_id = d.tenant_id AND a.delivery_id = d.id) AS attempts
       FROM webhook_deliveries d WHERE d.endpoint_id = $1`,
    [endpointId],
  );
  return rows;
}

describe('delivery workers', () => {
  it('never sends one attempt twice when two workers share the database', async () => {
    const first = await setUp('/a');
    const second = await first.api.post('/v1/webhook-endpoints', {
      url: first.receiver.url('/b'),
      enabledEvents: ['*'],
    });
    first.receiver.expectSecret('/b', second.body.secret);
    first.receiver.respondWith(() => ({ status: 200, delayMs: 10 }));
    // 30 customers, each sent to both endpoints.
    const total = 60;
    await Promise.all(
      Array.from({ length: total / 2 }, (_, i) =>
        first.api.post('/v1/customers', { name: `n${i}` }),
      ),
    );

    const workers = [startWorker({ concurrency: 4 }), startWorker({ concurrency: 4 })];
    await waitFor(() => first.receiver.received.length >= total, `${total} deliveries`);
    await Promise.all(workers.map((w) => w.stop()));

    const counts = new Map<string, number>();
    for (const m of first.receiver.received) {
      const k = `${m.path} ${m.id}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    assert.equal(counts.size, total);
    assert.ok(
      [...counts.values()].every((n) => n === 1),
      'each attempt arrived once',
    );
    assert.ok(first.receiver.received.every((m) => m.verified));
    assert.equal(workers[0]!.attemptsMade + workers[1]!.attemptsMade, total);
    assert.ok(
      workers.every((w) => w.attemptsMade > 0),
      'both workers took a share',
    );
    for (const endpointId of [first.endpoint.id, second.body.id]) {
      for (const row of await attemptsOf(endpointId)) {
        assert.deepEqual(row, { status: 'succeeded', attempt_count: 1, attempts: 1 });
      }
    }
  });

  it('finishes and records the attempts in flight when stopped', async () => {
    const { api, receiver, endpoint } = await setUp('/slow');
    receiver.respondWith(() => ({ status: 200, delayMs: 400 }));
    await api.post('/v1/customers', { name: 'slow' });
    const worker = startWorker();
    await waitFor(() => receiver.received.length === 1, 'request in flight');
    await worker.stop();
    assert.deepEqual(await attemptsOf(endpoint.id), [
      { status: 'succeeded', attempt_count: 1, attempts: 1 },
    ]);
  });

  it('fails an attempt that gets no answer within the timeout', async () => {
    const { api, receiver, endpoint } = await setUp('/hang');
    receiver.respondWith(() => ({ status: 200, hang: true }));
    await api.post('/v1/customers', { name: 'hang' });
    const worker = startWorker({ timeoutMs: 200 });
    await waitFor(async () => (await attemptsOf(endpoint.id))[0]?.attempts === 1, 'attempt');
    await worker.stop();
    const { rows } = await db.query(
      `SELECT error, response_status FROM webhook_attempts WHERE delivery_id IN
         (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1)`,
      [endpoint.id],
    );
    assert.deepEqual(rows, [{ error: 'no response within 0.2 s', response_status: null }]);
    assert.equal((await attemptsOf(endpoint.id))[0]!.status, 'pending');
  });

  it('checks the destination again at delivery time and sends nothing to a forbidden one', async () => {
    const { api, receiver, endpoint } = await setUp('/checked');
    await api.post('/v1/customers', { name: 'one' });
    // Loopback is no longer allowed where this worker runs.
    const strict = startWorker({ allowLoopback: false });
    await waitFor(async () => (await attemptsOf(endpoint.id))[0]?.attempts === 1, 'attempt');
    await strict.stop();
    // The host now points somewhere internal (as if its DNS had changed).
    await db.query(
      `UPDATE webhook_endpoints SET url = 'https://169.254.169.254/latest' WHERE id = $1`,
      [endpoint.id],
    );
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [
      endpoint.id,
    ]);
    const lenient = startWorker();
    await waitFor(async () => (await attemptsOf(endpoint.id))[0]?.attempts === 2, 'attempt');
    await lenient.stop();
    const { rows } = await db.query<{ error: string }>(
      `SELECT error FROM webhook_attempts WHERE delivery_id IN
         (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1) ORDER BY attempt`,
      [endpoint.id],
    );
    assert.match(rows[0]!.error, /https/);
    assert.match(rows[1]!.error, /public addresses only/);
    assert.doesNotMatch(rows[1]!.error, /169\.254/, 'never what the host resolves to');
    assert.equal(receiver.received.length, 0);
  });

  it('runs alone as `billing worker` and stops cleanly on SIGTERM', async () => {
    const { api, receiver, endpoint } = await setUp('/standalone');
    await api.post('/v1/customers', { name: 'standalone' });
    const child = spawn(process.execPath, [path.resolve('bin/billing.js'), 'worker'], {
      env: { ...process.env, ...databaseEnv(url), WEBHOOKS_ALLOW_LOOPBACK: 'true' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    try {
      await waitFor(
        () => receiver.received.length === 1,
        'delivery by the standalone worker',
        15_000,
      );
      assert.ok(receiver.received[0]!.verified);
      await waitFor(
        async () => (await attemptsOf(endpoint.id))[0]?.status === 'succeeded',
        'recorded',
      );
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /SIGTERM received/);
  });
});
