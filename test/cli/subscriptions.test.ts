import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  client,
  createTenantWithKey,
  createTestDatabase,
  databaseEnv,
  setSettings,
  startTestServer,
} from '../helpers.ts';
import { createPrice } from '../subscriptions/fixtures.ts';
import { billing } from './billing.ts';

// `billing subscriptions run | show` against a server's database. The server runs no worker,
// so only the command bills.

const url = await createTestDatabase();
const server = await startTestServer(url, { runWorker: false });
const env = databaseEnv(url);
const key = await createTenantWithKey(server.db);
// No grace period: the first invoice is due for issue as soon as the subscription is made.
await setSettings(server.db, key.tenantId, { invoiceGraceMinutes: 0 }, ['test']);
const api = client(server.url, key.secret);

async function subscribe() {
  const price = await createPrice(api, { unitAmount: 3000 });
  const customer = await api.post('/v1/customers', { name: 'Ada Lovelace' });
  assert.equal(customer.status, 201, customer.text);
  const created = await api.post('/v1/subscriptions', {
    customerId: customer.body.id,
    items: [{ priceId: price.id }],
  });
  assert.equal(created.status, 201, created.text);
  return created.body;
}

describe('billing subscriptions', () => {
  it('run: bills what is due up to --at (default now) once, and prints the steps taken', async () => {
    const subscription = await subscribe();
    const invoice = () => api.get(`/v1/invoices/${subscription.latestInvoiceId}`);
    assert.equal((await invoice()).body.status, 'draft');

    const anHourAgo = new Date(Date.now() - 3600_000).toISOString();
    const before = JSON.parse(
      await billing(env, 'subscriptions', 'run', '--at', anHourAgo, '--json'),
    );
    assert.deepEqual(before, { at: anHourAgo, steps: 0 });
    assert.equal((await invoice()).body.status, 'draft');

    const now = JSON.parse(await billing(env, 'subscriptions', 'run', '--json'));
    assert.ok(now.steps >= 1, JSON.stringify(now));
    const issued = (await invoice()).body;
    assert.equal(issued.status, 'open');
    assert.match(issued.number, /\d+$/);

    assert.match(await billing(env, 'subscriptions', 'run'), /^steps: 0$/m);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    await assert.rejects(
      billing(env, 'subscriptions', 'run', '--at', tomorrow),
      /--at must not be later than now/,
    );
    await assert.rejects(
      billing(env, 'subscriptions', 'run', '--at', 'yesterday'),
      /--at must be an ISO 8601 instant/,
    );
  });

  it('show: prints the subscription as the API shows it, and refuses an unknown one', async () => {
    const subscription = await subscribe();
    const shown = JSON.parse(
      await billing(
        env,
        'subscriptions',
        'show',
        '--tenant',
        key.tenantId,
        '--environment',
        'test',
        subscription.id,
      ),
    );
    assert.deepEqual(shown, (await api.get(`/v1/subscriptions/${subscription.id}`)).body);
    // Live is the default environment: a test subscription is not there.
    await assert.rejects(
      billing(env, 'subscriptions', 'show', '--tenant', key.tenantId, subscription.id),
      /resource_missing/,
    );
    await assert.rejects(
      billing(env, 'subscriptions', 'show', '--tenant', key.tenantId, '--environment', 'prod', 'x'),
      /--environment must be live or test/,
    );
  });
});
