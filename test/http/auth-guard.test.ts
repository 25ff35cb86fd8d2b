import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { generateSecret } from '../../src/keys/secret.ts';
import {
  call,
  createTenantWithKey,
  createTestDatabase,
  drivenClock,
  revokeKey,
  startTestServer,
  waitFor,
  type ApiResponse,
} from '../helpers.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const url = await createTestDatabase();
// Behind a trusted proxy, the client's address comes from X-Forwarded-For.
const guarded = { trustProxy: true, authFailureLimit: 3, authFailureWindowSeconds: 2 };
// Its in-memory windows are on this clock, which the test moves past a window's end.
const clock = drivenClock();
const server = await startTestServer(url, guarded, undefined, clock);
const db = server.db;

let addressCounter = 0;
/** A documentation address (RFC 5737) no other test uses. */
const nextAddress = () => `198.51.100.${++addressCounter}`;

function whoami(base: string, from: string, authorization?: string): Promise<ApiResponse> {
  return call(base, 'GET', '/v1/auth/whoami', {
    headers: {
      'x-forwarded-for': from,
      ...(authorization === undefined ? {} : { authorization }),
    },
  });
}

function assertSlowedDown(res: ApiResponse, windowSeconds = 2): void {
  assert.equal(res.status, 429, res.text);
  assert.equal(res.body.error.code, 'rate_limited');
  assert.equal(res.body.error.requestId, res.headers.get('request-id'));
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds,
    `${retryAfter}`,
  );
}

/**
 * Runs `attempt` with a fresh address. The count it checks lasts the 2-second window from the
 * first failure: on a loaded machine the requests of one attempt can take longer than that, and
 * then a refusal it expected never comes. Such an attempt is made again (at most five tries);
 * one that fails within the window fails the test.
 */
async function inOneWindow(attempt: (address: string) => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    const started = performance.now();
    try {
      await attempt(nextAddress());
      return;
    } catch (error) {
      if (performance.now() - started < guarded.authFailureWindowSeconds * 1000 || tries === 5) {
        throw error;
      }
    }
  }
}

describe('slow-down of failed authentication', () => {
  it('answers 429 to an address after too many unknown keys, even for a valid key, until the window passes', async () => {
    const valid = await createTenantWithKey(db);
    let attacker = '';
    let refused: ApiResponse | undefined;
    await inOneWindow(async (address) => {
      attacker = address;
      for (let i = 0; i < 3; i++) {
        const res = await whoami(server.url, attacker, `Bearer ${generateSecret('test')}`);
        assert.equal(res.body.error.code, 'api_key_invalid', res.text);
      }
      refused = await whoami(server.url, attacker, `Bearer ${valid.secret}`);
      assertSlowedDown(refused);
      assertSlowedDown(await whoami(server.url, attacker, `Bearer ${generateSecret('test')}`));
    });

    clock.advance(Number(refused!.headers.get('retry-after')) * 1000 + 100);
    const res = await whoami(server.url, attacker, `Bearer ${valid.secret}`);
    assert.equal(res.status, 200, res.text);
  });

  it('leaves other addresses alone', async () => {
    const valid = await createTenantWithKey(db);
    await inOneWindow(async (attacker) => {
      for (let i = 0; i < 4; i++) await whoami(server.url, attacker, 'Bearer sk_test_guess');
      assertSlowedDown(await whoami(server.url, attacker, `Bearer ${valid.secret}`));
    });
    const res = await whoami(server.url, nextAddress(), `Bearer ${valid.secret}`);
    assert.equal(res.status, 200, res.text);
  });

  it('takes the address the proxy saw, so a forged X-Forwarded-For does not escape it', async () => {
    const valid = await createTenantWithKey(db);
    await inOneWindow(async (attacker) => {
      for (let i = 0; i < 3; i++) {
        await whoami(server.url, `203.0.113.${i}, ${attacker}`, `Bearer ${generateSecret('test')}`);
      }
      assertSlowedDown(
        await whoami(server.url, `203.0.113.99, ${attacker}`, `Bearer ${valid.secret}`),
      );
    });
  });

  it('counts malformed and revoked keys, but not a request without a key', async () => {
    const revoked = await createTenantWithKey(db);
    await revokeKey(db, revoked);
    const valid = await createTenantWithKey(db);

    const careless = nextAddress();
    for (let i = 0; i < 5; i++) {
      const res = await whoami(server.url, careless);
      assert.equal(res.body.error.code, 'api_key_missing');
    }
    assert.equal((await whoami(server.url, careless, `Bearer ${valid.secret}`)).status, 200);

    await inOneWindow(async (prober) => {
      assert.equal(
        (await whoami(server.url, prober, `Bearer ${revoked.secret}`)).body.error.code,
        'api_key_revoked',
      );
      assert.equal(
        (await whoami(server.url, prober, 'Bearer sk_live_short')).body.error.code,
        'api_key_invalid',
      );
      assert.equal(
        (await whoami(server.url, prober, `Bearer ${revoked.secret}`)).body.error.code,
        'api_key_revoked',
      );
      assertSlowedDown(await whoami(server.url, prober, `Bearer ${valid.secret}`));
    });
  });

  it('shares the count across instances through Redis', async () => {
    const shared = { ...guarded, redisUrl: REDIS_URL, redisKeyPrefix: randomPrefix() };
    const a = await startTestServer(url, shared);
    const b = await startTestServer(url, shared);
    const valid = await createTenantWithKey(db);
    await inOneWindow(async (attacker) => {
      for (const base of [a.url, b.url, a.url]) {
        const res = await whoami(base, attacker, `Bearer ${generateSecret('test')}`);
        assert.equal(res.body.error.code, 'api_key_invalid');
      }
      assertSlowedDown(await whoami(b.url, attacker, `Bearer ${valid.secret}`));
    });
    assert.equal((await whoami(b.url, nextAddress(), `Bearer ${valid.secret}`)).status, 200);
  });
});

describe('slow-down of failed authentication under a concurrent burst', () => {
  // A window long enough for the whole burst to fall inside it.
  const burstGuard = { trustProxy: true, authFailureLimit: 5, authFailureWindowSeconds: 60 };

  /** 200 unknown keys at once from one address: exactly `limit` 401s, the rest 429. */
  async function burst(base: string): Promise<void> {
    const attacker = nextAddress();
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => whoami(base, attacker, `Bearer ${generateSecret('test')}`)),
    );
    const counts = new Map<string, number>();
    for (const res of answers) {
      const code = `${res.status} ${res.body.error.code}`;
      counts.set(code, (counts.get(code) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(counts), {
      '401 api_key_invalid': 5,
      '429 rate_limited': 195,
    });
    for (const res of answers.filter((r) => r.status === 429)) assertSlowedDown(res, 60);
  }

  it('answers at most the limit of 401s, then 429, counted in memory', async () => {
    await burst((await startTestServer(url, burstGuard)).url);
  });

  it('answers at most the limit of 401s, then 429, counted in Redis', async () => {
    const shared = { ...burstGuard, redisUrl: REDIS_URL, redisKeyPrefix: randomPrefix() };
    await burst((await startTestServer(url, shared)).url);
  });

  it('answers at most the limit of 401s across two instances sharing Redis', async () => {
    const shared = { ...burstGuard, redisUrl: REDIS_URL, redisKeyPrefix: randomPrefix() };
    const a = await startTestServer(url, shared);
    const b = await startTestServer(url, shared);
    const attacker = nextAddress();
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        whoami(i % 2 ? a.url : b.url, attacker, `Bearer ${generateSecret('test')}`),
      ),
    );
    assert.equal(answers.filter((r) => r.status === 401).length, 5);
    assert.equal(answers.filter((r) => r.status === 429).length, 95);
  });
});

describe('key verification', () => {
  it('answers a repeated unknown key from the same cache as a revoked one: no look-up tells them apart', async () => {
    const revoked = await createTenantWithKey(db);
    await revokeKey(db, revoked);
    // Let the revocation notice pass, so that it evicts nothing below: notices arrive in commit
    // order, so once a cached key revoked after it is refused, this one's has been handled too.
    const marker = await createTenantWithKey(db);
    assert.equal((await whoami(server.url, nextAddress(), `Bearer ${marker.secret}`)).status, 200);
    await revokeKey(db, marker);
    await waitFor(
      async () =>
        (await whoami(server.url, nextAddress(), `Bearer ${marker.secret}`)).status === 401,
      'the notices of both revocations',
      5000,
    );
    const unknown = generateSecret('test');
    // Two addresses per kind, so the slow-down does not step in.
    for (const [secret, code] of [
      [unknown, 'api_key_invalid'],
      [revoked.secret, 'api_key_revoked'],
    ] as const) {
      const before = server.verifier.lookups;
      for (let i = 0; i < 2; i++) {
        const res = await whoami(server.url, nextAddress(), `Bearer ${secret}`);
        assert.equal(res.body.error.code, code);
      }
      assert.equal(server.verifier.lookups - before, 1, `${code}: one look-up, then the cache`);
    }
  });
});

function randomPrefix(): string {
  return `billing-test-${randomBytes(6).toString('hex')}`;
}
