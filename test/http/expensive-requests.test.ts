// Expensive requests take turns per tenant (src/http/expensive-requests.ts): the queue's rules
// on their own, then what a client sees over HTTP when its tenant asks for too many at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimitedError, RequestTimeoutError } from '../../src/errors.ts';
import { ExpensiveRequests } from '../../src/http/expensive-requests.ts';
import { loadConfig } from '../../src/config.ts';
import { client, createTenantWithKey, startTestApp } from '../helpers.ts';

/** Lets settled promises run their reactions (no time passes: nothing reads a clock). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Asks for a turn; `started` lists the requests that got one, in order. */
function asker(turns: ExpensiveRequests, started: string[]) {
  const releases = new Map<string, () => void>();
  return {
    ask(tenant: string, name: string, signal?: AbortSignal) {
      const admitted = turns.admit(tenant, signal).then((release) => {
        started.push(name);
        releases.set(name, release);
      });
      admitted.catch(() => undefined);
      return admitted;
    },
    release: (name: string) => releases.get(name)!(),
  };
}

describe('the turns of expensive requests', () => {
  it('runs at most the bound per tenant, then serves waiting tenants in turn', async () => {
    const turns = new ExpensiveRequests({ perTenant: 2, total: 3, queuePerTenant: 3 });
    const started: string[] = [];
    const { ask, release } = asker(turns, started);
    for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) void ask('A', name);
    void ask('B', 'b1');
    for (const name of ['b2', 'b3']) void ask('B', name);
    void ask('C', 'c1');
    await settle();
    // A holds its two, B the last place of three; the rest wait.
    assert.deepEqual(started, ['a1', 'a2', 'b1']);
    assert.deepEqual(turns.state(), { running: 3, waiting: 6 });

    // Each freed place goes to the next tenant in turn that may run, A first (it waited first).
    release('a1');
    await settle();
    release('b1');
    await settle();
    release('a2');
    await settle();
    release('a3');
    await settle();
    assert.deepEqual(started, ['a1', 'a2', 'b1', 'a3', 'b2', 'c1', 'a4']);
    // A place freed twice is freed once.
    release('a3');
    await settle();
    assert.equal(turns.state().running, 3);
  });

  it('lets a tenant under its bound start at once while another waits for its own', async () => {
    const turns = new ExpensiveRequests({ perTenant: 1, total: 4, queuePerTenant: 4 });
    const started: string[] = [];
    const { ask } = asker(turns, started);
    void ask('A', 'a1');
    void ask('A', 'a2');
    void ask('B', 'b1');
    await settle();
    assert.deepEqual(started, ['a1', 'b1']);
  });

  it("refuses with 429 and Retry-After once the tenant's queue is full, other tenants not", async () => {
    const turns = new ExpensiveRequests({ perTenant: 1, total: 1, queuePerTenant: 2 });
    const started: string[] = [];
    const { ask } = asker(turns, started);
    void ask('A', 'a1');
    void ask('A', 'a2');
    void ask('A', 'a3');
    await assert.rejects(turns.admit('A'), (error: unknown) => {
      assert.ok(error instanceof RateLimitedError);
      assert.equal(error.status, 429);
      assert.equal(error.code, 'rate_limited');
      assert.equal(error.headers?.['retry-after'], '1');
      return true;
    });
    void ask('B', 'b1');
    await settle();
    assert.deepEqual(turns.state(), { running: 1, waiting: 3 });
  });

  it('drops a request whose client left while it waited', async () => {
    const turns = new ExpensiveRequests({ perTenant: 1, total: 1, queuePerTenant: 2 });
    const started: string[] = [];
    const { ask, release } = asker(turns, started);
    void ask('A', 'a1');
    const gone = new AbortController();
    const left = turns.admit('A', gone.signal);
    void ask('A', 'a3');
    gone.abort();
    await assert.rejects(left, RequestTimeoutError);
    release('a1');
    await settle();
    assert.deepEqual(started, ['a1', 'a3']);
    assert.deepEqual(turns.state(), { running: 1, waiting: 0 });
  });

  it('refuses limits that are not positive integers', () => {
    assert.throws(
      () => new ExpensiveRequests({ perTenant: 0, total: 1, queuePerTenant: 1 }),
      RangeError,
    );
  });

  it('defaults to 2 per tenant, half the pool in all and 16 waiting per tenant', () => {
    const config = loadConfig({ DATABASE_POOL_SIZE: '8' });
    assert.deepEqual(
      [config.expensivePerTenant, config.expensiveTotal, config.expensiveQueuePerTenant],
      [2, 4, 16],
    );
  });
});

describe('expensive requests over HTTP', async () => {
  // One turn and one place in the queue: of a burst of previews, most are refused at once.
  const server = await startTestApp({
    expensivePerTenant: 1,
    expensiveTotal: 2,
    expensiveQueuePerTenant: 1,
  });
  const busy = await createTenantWithKey(server.db);
  const other = await createTenantWithKey(server.db);
  const busyApi = client(server.url, busy.secret);
  const otherApi = client(server.url, other.secret);
  const draftOf = async (api: typeof busyApi) => {
    const customer = (await api.post('/v1/customers', { name: 'Buyer' })).body;
    const lines = Array.from({ length: 250 }, (_, i) => ({
      description: `Item ${i}`,
      unitAmount: 1,
    }));
    const draft = await api.post('/v1/invoices', {
      customerId: customer.id,
      currency: 'eur',
      lines,
    });
    return draft.body.id as string;
  };
  const busyDraft = await draftOf(busyApi);
  const otherDraft = await draftOf(otherApi);

  it("answers a tenant's expensive request beyond its queue 429 rate_limited, with Retry-After", async () => {
    // Six previews at once (each renders 250 lines, far longer than the burst takes to arrive):
    // one runs, one waits, the others are refused. The other tenant's preview and the busy
    // tenant's cheap requests are served meanwhile.
    const burst = Array.from({ length: 6 }, () => busyApi.get(`/v1/invoices/${busyDraft}/pdf`));
    const [others, whoami, page] = await Promise.all([
      otherApi.get(`/v1/invoices/${otherDraft}/pdf`),
      busyApi.get('/v1/auth/whoami'),
      busyApi.get('/v1/customers?limit=25'),
    ]);
    const answers = await Promise.all(burst);
    assert.equal(others.status, 200);
    assert.equal(whoami.status, 200);
    assert.equal(page.status, 200);
    const served = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    assert.equal(served.length + refused.length, 6);
    assert.ok(served.length >= 2, `${served.length} served`);
    assert.ok(refused.length >= 1, 'none refused');
    for (const res of refused) {
      assert.equal(res.body.error.code, 'rate_limited');
      assert.match(res.body.error.message, /expensive requests/);
      assert.equal(res.headers.get('retry-after'), '1');
    }
    // Once the burst is answered, the tenant's turn is free again.
    assert.equal((await busyApi.get(`/v1/invoices/${busyDraft}/pdf`)).status, 200);
  });
});
