// Rate limits: per API key, per client address for failed authentication, and per client
// address for the hosted invoice page (which has no key).
//
// Per key: a fixed one-second window of RATE_LIMIT_LIVE / RATE_LIMIT_TEST requests (defaults
// 100 and 25). Every authenticated response says where the key stands, in the form of the IETF
// draft "RateLimit header fields for HTTP" (`RateLimit-Policy: "default";q=100;w=1`,
// `RateLimit: "default";r=57;t=1`); a request over the limit is 429 rate_limited with
// Retry-After.
//
// Failed authentication: after AUTH_FAILURE_LIMIT unknown or revoked keys (default 20) from one
// address within AUTH_FAILURE_WINDOW_SECONDS (default 60), every key presented from that address
// is refused with 429 before it is looked at, until the window passes: a guesser learns nothing,
// right or wrong, and gets 20 guesses a minute against keys of 190 random bits. The keys of a
// concurrent burst can all pass that check before the first of them has failed, so each failure
// is also counted as it happens, and one beyond the limit is answered 429 rather than 401: at
// most the limit of 401s per address and window, however the requests arrive.
//
// Hosted page: HOSTED_PAGE_RATE_LIMIT requests (default 60) per address and minute, pages,
// downloads and unknown links alike (its stylesheet aside). Its own counters: a customer
// reading an invoice never uses up an API key's budget or the other way round.
//
// Without REDIS_URL the counters live in the instance's memory and are answered synchronously.
// With REDIS_URL the counters live in Redis and every instance shares them. Redis helps but is
// not needed: while it is unreachable each instance counts in its own memory (the insurance
// limiter of rate-limiter-flexible) and keeps serving, and should the limiter itself fail, the
// request goes through rather than failing.
import type { Clock } from '../clock.ts';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { Environment } from '../tenancy.ts';
import { RateLimitedError } from '../errors.ts';
import { LocalWindows } from './rate-limit-windows.ts';

const POLICY = '"default"';
const KEY_WINDOW_SECONDS = 1;

/** Whole seconds until a window ends, as the headers and Retry-After give it. */
function secondsUntil(msBeforeNext: number): number {
  return Math.max(0, Math.ceil(msBeforeNext / 1000));
}

/** A key's per-second limit in one environment, and its RateLimit-Policy value. */
interface KeyLimit {
  points: number;
  policy: string;
}

function keyLimit(points: number): KeyLimit {
  return { points, policy: `${POLICY};q=${points};w=${KEY_WINDOW_SECONDS}` };
}

interface SharedLimiters {
  perKey: Record<Environment, RateLimiterAbstract>;
  authFailures: RateLimiterAbstract;
  hostedPage: RateLimiterAbstract;
}

/**
 * Redis and its limiters, with REDIS_URL only: ./rate-limit-redis.ts and ioredis (some 60
 * modules, a twentieth of what the server loads at start) are imported only then.
 */
interface SharedStore {
  client: Redis;
  /** A limiter counting under `<REDIS_KEY_PREFIX>:rl:<name>`. */
  limiter(name: string, points: number, durationSeconds: number): RateLimiterAbstract;
}

interface LocalLimiters {
  perKey: Record<Environment, LocalWindows>;
  authFailures: LocalWindows;
  hostedPage: LocalWindows;
}

const HOSTED_PAGE_WINDOW_SECONDS = 60;

export class RateLimits {
  /** Without Redis the counters live here, and every check below answers synchronously. */
  readonly synchronous: boolean;
  private readonly shared: SharedLimiters | undefined;
  private readonly local: LocalLimiters | undefined;
  /** Made once: the policy header's value never changes for an environment. */
  private readonly keyLimits: Record<Environment, KeyLimit>;

  private readonly config: Config;
  private readonly log: FastifyBaseLogger;
  private readonly redis: SharedStore | undefined;
  private readonly clock: Clock;

  private constructor(
    config: Config,
    log: FastifyBaseLogger,
    redis: SharedStore | undefined,
    clock: Clock,
  ) {
    this.config = config;
    this.clock = clock;
    this.log = log;
    this.redis = redis;
    this.synchronous = redis === undefined;
    this.keyLimits = { live: keyLimit(config.rateLimitLive), test: keyLimit(config.rateLimitTest) };
    if (redis === undefined) {
      const perKey = new LocalWindows(KEY_WINDOW_SECONDS * 1000, clock);
      this.local = {
        // Keys are ids, unique across environments: one map serves both.
        perKey: { live: perKey, test: perKey },
        authFailures: new LocalWindows(config.authFailureWindowSeconds * 1000, clock),
        hostedPage: new LocalWindows(HOSTED_PAGE_WINDOW_SECONDS * 1000, clock),
      };
      return;
    }
    this.shared = {
      perKey: {
        live: redis.limiter('live', this.keyLimits.live.points, KEY_WINDOW_SECONDS),
        test: redis.limiter('test', this.keyLimits.test.points, KEY_WINDOW_SECONDS),
      },
      authFailures: redis.limiter(
        'auth-failures',
        config.authFailureLimit,
        config.authFailureWindowSeconds,
      ),
      hostedPage: redis.limiter(
        'hosted-page',
        config.hostedPageRateLimit,
        HOSTED_PAGE_WINDOW_SECONDS,
      ),
    };
  }

  /** Connects to Redis when configured (waiting at most its connect timeout) and builds the limiters. */
  static async create(config: Config, log: FastifyBaseLogger, clock: Clock): Promise<RateLimits> {
    if (!config.redisUrl) return new RateLimits(config, log, undefined, clock);
    const { connectRedis, sharedLimiter } = await import('./rate-limit-redis.ts');
    const client = await connectRedis(config.redisUrl, log);
    const prefix = `${config.redisKeyPrefix}:rl`;
    const limiter = (name: string, points: number, duration: number) =>
      sharedLimiter(client, { keyPrefix: `${prefix}:${name}`, points, duration });
    return new RateLimits(config, log, { client, limiter }, clock);
  }

  /**
   * Counts one request of the key and sets the RateLimit headers; throws RateLimitedError when
   * the key is over its limit. Synchronous (returns nothing) when `synchronous`.
   */
  admitKey(keyId: string, environment: Environment, reply: FastifyReply): void | Promise<void> {
    const limit = this.keyLimits[environment];
    if (this.local) {
      const now = this.clock.nowMs();
      const window = this.local.perKey[environment].add(keyId, 1, now);
      this.answer(reply, limit, window.points, window.endsAt - now);
      return;
    }
    return this.admitShared(this.shared!, keyId, environment, reply, limit);
  }

  private async admitShared(
    shared: SharedLimiters,
    keyId: string,
    environment: Environment,
    reply: FastifyReply,
    limit: KeyLimit,
  ): Promise<void> {
    let state: RateLimiterRes;
    try {
      state = await shared.perKey[environment].consume(keyId);
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) {
        this.log.warn({ err: outcome }, 'rate limiter failed; request let through');
        return;
      }
      state = outcome;
    }
    this.answer(reply, limit, state.consumedPoints, state.msBeforeNext);
  }

  /** The RateLimit headers for a key that has used `used` points; refuses one over its limit. */
  private answer(reply: FastifyReply, limit: KeyLimit, used: number, msBeforeNext: number): void {
    const reset = secondsUntil(msBeforeNext);
    reply.header('ratelimit-policy', limit.policy);
    reply.header('ratelimit', `${POLICY};r=${Math.max(limit.points - used, 0)};t=${reset}`);
    if (used > limit.points) {
      throw new RateLimitedError(
        `Too many requests for this API key: at most ${limit.points} a second. Retry after the time in Retry-After.`,
        Math.max(1, reset),
      );
    }
  }

  /**
   * Throws RateLimitedError while the address has too many recent failed authentications.
   * Synchronous (returns nothing) when `synchronous`.
   */
  refuseIfBlocked(address: string): void | Promise<void> {
    if (this.local) {
      const now = this.clock.nowMs();
      const window = this.local.authFailures.peek(address, now);
      if (window) this.refuseAddress(window.points, window.endsAt - now);
      return;
    }
    return this.refuseIfBlockedShared(this.shared!, address);
  }

  private async refuseIfBlockedShared(shared: SharedLimiters, address: string): Promise<void> {
    let state: RateLimiterRes | null;
    try {
      state = await shared.authFailures.get(address);
    } catch (error) {
      this.log.warn({ err: error }, 'failed-authentication limiter failed; request let through');
      return;
    }
    if (state) this.refuseAddress(state.consumedPoints, state.msBeforeNext);
  }

  private refuseAddress(failures: number, msBeforeNext: number): void {
    if (failures >= this.config.authFailureLimit) {
      throw new RateLimitedError(
        'Too many failed authentications from this address. Retry after the time in Retry-After.',
        Math.max(1, secondsUntil(msBeforeNext)),
      );
    }
  }

  /**
   * Counts a presented key that was unknown or revoked against the address it came from, and
   * throws RateLimitedError when that failure is beyond the limit. The count and its answer
   * are one step (an increment in memory, or Redis's atomic INCR): a check before the look-up
   * alone would let a concurrent burst through, each of its requests checked before the first
   * failure is counted.
   */
  async countAuthFailure(address: string): Promise<void> {
    if (this.local) {
      const now = this.clock.nowMs();
      const window = this.local.authFailures.add(address, 1, now);
      this.refuseFailure(window.points, window.endsAt - now);
      return;
    }
    let state: RateLimiterRes;
    try {
      state = await this.shared!.authFailures.penalty(address);
    } catch (error) {
      this.log.warn({ err: error }, 'failed-authentication limiter failed');
      return;
    }
    this.refuseFailure(state.consumedPoints, state.msBeforeNext);
  }

  /** The failure that makes `failures` is answered 429 when it is beyond the limit. */
  private refuseFailure(failures: number, msBeforeNext: number): void {
    if (failures > this.config.authFailureLimit) this.refuseAddress(failures, msBeforeNext);
  }

  /**
   * Counts one request to the hosted page from the address: 0 when it may go on, else the
   * seconds until it may try again (the page answers 429 itself, as HTML).
   */
  async admitPageRequest(address: string): Promise<number> {
    const limit = this.config.hostedPageRateLimit;
    if (this.local) {
      const now = this.clock.nowMs();
      const window = this.local.hostedPage.add(address, 1, now);
      return window.points > limit ? Math.max(1, secondsUntil(window.endsAt - now)) : 0;
    }
    try {
      await this.shared!.hostedPage.consume(address);
      return 0;
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) return Math.max(1, secondsUntil(outcome.msBeforeNext));
      this.log.warn({ err: outcome }, 'hosted page limiter failed; request let through');
      return 0;
    }
  }

  /**
   * A limiter of `points` in `durationSeconds` counted in Redis under its own prefix, for
   * another module's counters (the console's sign-in throttle); null without REDIS_URL.
   */
  sharedLimiter(name: string, points: number, durationSeconds: number): RateLimiterAbstract | null {
    return this.redis?.limiter(name, points, durationSeconds) ?? null;
  }

  async close(): Promise<void> {
    if (this.local) {
      this.local.perKey.live.close();
      this.local.authFailures.close();
      this.local.hostedPage.close();
    }
    if (!this.redis) return;
    const { client } = this.redis;
    client.removeAllListeners();
    client.on('error', () => undefined);
    await client.quit().catch(() => client.disconnect());
  }
}
