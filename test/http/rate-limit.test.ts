import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import {
  call,
  client,
  createTenantWithKey,
  createTestDatabase,
  drivenClock,
  startTestServer,
  waitUntil,
  type ApiResponse,
} from '../helpers.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const url = await createTestDatabase();
const limits = loadConfig({ RATE_LIMIT_TEST: '5', RATE_LIMIT_LIVE: '7' });
// The in-memory windows are on the server's clock: the test moves it past a window's end.
const clock = drivenClock();
const server = await startTestServer(
  url,
  { rateLimitTest: limits.rateLimitTest, rateLimitLive: limits.rateLimitLive },
  undefined,
  clock,
);
const db = server.db;

/** A fresh Redis key prefix, so runs and tests never share counters. */
const uniquePrefix = () => `billing-test-${randomBytes(6).toString('hex')}`;

function assertRateLimited(res: ApiResponse, limit: number): void {
  assert.equal(res.status, 429, res.text);
  assert.equal(res.body.error.code, 'rate_limited');
  assert.equal(res.body.error.requestId, res.headers.get('request-id'));
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 1, `${retryAfter}`);
  assert.equal(res.headers.get('ratelimit-policy'), `"default";q=${limit};w=1`);
  assert.match(res.headers.get('ratelimit') ?? '', /^"default";r=0;t=[01]$/);
}

/** The `r` (remaining) of a RateLimit header. */
function remaining(res: ApiResponse): number {
  const match = /^"default";r=(\d+);t=([01])$/.exec(res.headers.get('ratelimit') ?? '');
  assert.ok(match, `RateLimit header: ${res.headers.get('ratelimit')}`);
  return Number(match[1]);
}

describe('configuration', () => {
  it('defaults to 100 requests a second for live keys and 25 for test keys', () => {
    const config = loadConfig({});
    assert.equal(config.rateLimitLive, 100);
    assert.equal(config.rateLimitTest, 25);
    assert.equal(config.authFailureLimit, 20);
    assert.equal(config.authFailureWindowSeconds, 60);
  });

  it('reads the limits from the environment and names a wrong one', () => {
    assert.equal(limits.rateLimitTest, 5);
    assert.equal(limits.rateLimitLive, 7);
    assert.throws(
      () => loadConfig({ RATE_LIMIT_LIVE: '0', AUTH_FAILURE_LIMIT: 'many' }),
      (e) => {
        const message = (e as Error).message;
        return message.includes('RATE_LIMIT_LIVE') && message.includes('AUTH_FAILURE_LIMIT');
      },
    );
  });
});

describe('rate limit per key, one instance', () => {
  it('counts down in the RateLimit headers and refuses the request over the limit with 429 and Retry-After', async () => {
    // A window opens with a key's first request and lasts a second. On a loaded machine seven
    // requests in a row may take longer, and the count then starts again midway: such a try is
    // made again on a fresh key (at most five tries). A try within one second proves the count;
    // a wrong count fails every try.
    for (let attempt = 1; ; attempt++) {
      const key = await createTenantWithKey(db);
      const api = client(server.url, key.secret);
      const started = performance.now();
      const answers: ApiResponse[] = [];
      for (let i = 0; i < 6; i++) answers.push(await api.get('/v1/auth/whoami'));
      answers.push(await api.get('/v1/customers'));
      if (performance.now() - started >= 1000 && attempt < 5) continue;
      const counted = answers.slice(0, 5);
      for (const res of counted) {
        assert.equal(res.status, 200, res.text);
        assert.equal(res.headers.get('ratelimit-policy'), '"default";q=5;w=1');
      }
      assert.deepEqual(counted.map(remaining), [4, 3, 2, 1, 0]);
      assertRateLimited(answers[5]!, 5);
      assertRateLimited(answers[6]!, 5);
      return;
    }
  });

  it('serves the key again once the window has passed', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    for (let i = 0; i < 5; i++) assert.equal((await api.get('/v1/auth/whoami')).status, 200);
    const refused = await api.get('/v1/auth/whoami');
    assertRateLimited(refused, 5);
    clock.advance(Number(refused.headers.get('retry-after')) * 1000 - 1);
    assertRateLimited(await api.get('/v1/auth/whoami'), 5);
    clock.advance(51);
    const res = await api.get('/v1/auth/whoami');
    assert.equal(res.status, 200, res.text);
    assert.equal(remaining(res), 4);
  });

  it('gives each key its own budget, and live keys the live limit', async () => {
    const busy = await createTenantWithKey(db);
    const other = await createTenantWithKey(db, { tenantId: busy.tenantId });
    const live = await createTenantWithKey(db, { tenantId: busy.tenantId, environment: 'live' });
    for (let i = 0; i < 6; i++)
      await call(server.url, 'GET', '/v1/auth/whoami', { key: busy.secret });
    const res = await call(server.url, 'GET', '/v1/auth/whoami', { key: other.secret });
    assert.equal(res.status, 200);
    assert.equal(remaining(res), 4);
    const liveRes = await call(server.url, 'GET', '/v1/auth/whoami', { key: live.secret });
    assert.equal(liveRes.status, 200);
    assert.equal(liveRes.headers.get('ratelimit-policy'), '"default";q=7;w=1');
    assert.equal(remaining(liveRes), 6);
  });

  it('puts the headers on every authenticated response, errors included, and only there', async () => {
    const key = await createTenantWithKey(db, { scopes: ['customers:read'] });
    const api = client(server.url, key.secret);
    const missing = await api.get('/v1/customers/cus_missing');
    assert.equal(missing.status, 404);
    assert.equal(remaining(missing), 4);
    const invalid = await api.get('/v1/customers?limit=0');
    assert.equal(invalid.status, 400);
    assert.equal(remaining(invalid), 3);
    const forbidden = await api.post('/v1/customers', { name: 'x' });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.code, 'scope_insufficient');
    assert.equal(remaining(forbidden), 2);
    for (const res of [
      await call(server.url, 'GET', '/v1/auth/whoami'),
      await call(server.url, 'GET', '/healthz'),
      await call(server.url, 'GET', '/v1/nothing', { key: key.secret }),
    ]) {
      assert.equal(res.headers.get('ratelimit'), null, `${res.status} ${res.text}`);
      assert.equal(res.headers.get('ratelimit-policy'), null);
    }
  });

  it('stores no idempotent result for a 429: the same Idempotency-Key succeeds later', async () => {
    const key = await createTenantWithKey(db);
    const api = client(server.url, key.secret);
    for (let i = 0; i < 5; i++) await api.get('/v1/auth/whoami');
    const headers = { 'idempotency-key': 'after-429' };
    const refused = await api.post('/v1/customers', { name: 'Later Ltd' }, headers);
    assertRateLimited(refused, 5);
    const { rows } = await db.query(
      'SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1',
      [key.tenantId],
    );
    assert.equal(rows[0].n, 0);
    clock.advance(Number(refused.headers.get('retry-after')) * 1000 + 50);
    const created = await api.post('/v1/customers', { name: 'Later Ltd' }, headers);
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('idempotent-replayed'), null);
  });
});

describe('rate limit per key, shared through Redis', () => {
  it('counts the requests of one key across two instances', async () => {
    const shared = { redisUrl: REDIS_URL, redisKeyPrefix: uniquePrefix(), rateLimitTest: 5 };
    const a = await startTestServer(url, shared);
    const b = await startTestServer(url, shared);
    const key = await createTenantWithKey(db);
    const seen: number[] = [];
    for (const base of [a.url, b.url, a.url, b.url, a.url]) {
      const res = await call(base, 'GET', '/v1/auth/whoami', { key: key.secret });
      assert.equal(res.status, 200, res.text);
      seen.push(remaining(res));
    }
    assert.deepEqual(seen, [4, 3, 2, 1, 0]);
    assertRateLimited(await call(b.url, 'GET', '/v1/auth/whoami', { key: key.secret }), 5);
  });

  it('keeps serving, counting in memory, while Redis is unreachable, and shares again when it is back', async () => {
    const proxy = await RedisProxy.start(new URL(REDIS_URL));
    const prefix = uniquePrefix();
    const logs: string[] = [];
    const viaProxy = await startTestServer(
      url,
      {
        redisUrl: `redis://127.0.0.1:${proxy.port}`,
        redisKeyPrefix: prefix,
        rateLimitTest: 5,
        logLevel: 'warn',
      },
      { write: (line) => void logs.push(line) },
    );
    const direct = await startTestServer(url, {
      redisUrl: REDIS_URL,
      redisKeyPrefix: prefix,
      rateLimitTest: 5,
    });
    const whoami = (base: string, secret: string) =>
      call(base, 'GET', '/v1/auth/whoami', { key: secret });

    // Shared while the proxy is up: the direct instance sees the proxied instance's request.
    const first = await createTenantWithKey(db);
    assert.equal(remaining(await whoami(viaProxy.url, first.secret)), 4);
    assert.equal(remaining(await whoami(direct.url, first.secret)), 3);

    await proxy.stop();
    const during = await createTenantWithKey(db);
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await whoami(viaProxy.url, during.secret);
      assert.equal(res.status, 200, res.text);
      seen.push(remaining(res));
    }
    assert.deepEqual(seen, [4, 3, 2, 1, 0], 'the in-memory limiter counts instead');
    assertRateLimited(await whoami(viaProxy.url, during.secret), 5);
    // Failed-authentication accounting keeps working too.
    const unknown = await call(viaProxy.url, 'GET', '/v1/auth/whoami', {
      headers: { authorization: 'Bearer sk_test_nope' },
    });
    assert.equal(unknown.body.error.code, 'api_key_invalid');
    assert.ok(
      logs.some((line) => /Redis is unreachable/.test(line)),
      'the fallback is logged',
    );

    await proxy.restart();
    const back = await createTenantWithKey(db);
    // ioredis reconnects on its own (real) timers; each try a second apart, in a fresh window.
    const shared = async () => {
      const viaRes = await whoami(viaProxy.url, back.secret);
      const directRes = await whoami(direct.url, back.secret);
      return remaining(directRes) === remaining(viaRes) - 1;
    };
    assert.ok(await waitUntil(shared, 5000, 1100), 'the proxied instance uses Redis again');
  });
});

/** A TCP proxy in front of Redis that the test can cut, without touching Redis itself. */
class RedisProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  private readonly target: URL;

  private constructor(target: URL) {
    this.target = target;
  }

  static async start(target: URL): Promise<RedisProxy> {
    const proxy = new RedisProxy(target);
    await proxy.listen(0);
    after(() => proxy.stop());
    return proxy;
  }

  private listen(port: number): Promise<void> {
    const server = net.createServer((socket) => {
      const upstream = net.connect(Number(this.target.port || 6379), this.target.hostname);
      for (const s of [socket, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          socket.destroy();
          upstream.destroy();
        });
      }
      socket.pipe(upstream).pipe(socket);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        this.port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  restart(): Promise<void> {
    return this.listen(this.port);
  }
}
