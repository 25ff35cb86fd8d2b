// Rate limits: per API key, and per client address for failed authentication.
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
// right or wrong, and gets 20 guesses a minute against keys of 190 random bits.
//
// With REDIS_URL the counters live in Redis and every instance shares them. Redis helps but is
// not needed: while it is unreachable each instance counts in its own memory (the insurance
// limiter of rate-limiter-flexible) and keeps serving, and should the limiter itself fail, the
// request goes through rather than failing.
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { Environment } from '../tenancy.ts';
import { RateLimitedError } from './errors.ts';

const POLICY = '"default"';
const KEY_WINDOW_SECONDS = 1;

// While Redis is away commands fail at once (no offline queue) and the limiters skip it until
// it is ready again; a Redis that hangs costs a request at most the command timeout.
const REDIS_OPTIONS = {
  enableOfflineQueue: false,
  connectTimeout: 1000,
  commandTimeout: 200,
  maxRetriesPerRequest: 0,
  retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
};

interface LimiterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
}

/** Whole seconds until a window ends, as the headers and Retry-After give it. */
function secondsUntil(msBeforeNext: number): number {
  return Math.max(0, Math.ceil(msBeforeNext / 1000));
}

export class RateLimits {
  private readonly perKey: Record<Environment, RateLimiterAbstract>;
  private readonly authFailures: RateLimiterAbstract;

  private constructor(
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
    private readonly redis: Redis | undefined,
  ) {
    const prefix = `${config.redisKeyPrefix}:rl`;
    this.perKey = {
      live: this.limiter({
        keyPrefix: `${prefix}:live`,
        points: config.rateLimitLive,
        duration: KEY_WINDOW_SECONDS,
      }),
      test: this.limiter({
        keyPrefix: `${prefix}:test`,
        points: config.rateLimitTest,
        duration: KEY_WINDOW_SECONDS,
      }),
    };
    this.authFailures = this.limiter({
      keyPrefix: `${prefix}:auth-failures`,
      points: config.authFailureLimit,
      duration: config.authFailureWindowSeconds,
    });
  }

  /** Connects to Redis when configured (waiting at most its connect timeout) and builds the limiters. */
  static async create(config: Config, log: FastifyBaseLogger): Promise<RateLimits> {
    if (!config.redisUrl) return new RateLimits(config, log, undefined);
    const redis = new Redis(config.redisUrl, REDIS_OPTIONS);
    let shared: boolean | undefined;
    redis.on('ready', () => {
      if (shared !== true) log.info('rate limits are shared through Redis');
      shared = true;
    });
    // Logged once per outage: when the connection drops, or the first attempt fails.
    const lost = (error?: Error) => {
      if (shared !== false) {
        log.warn(
          error ? { err: error } : {},
          'Redis is unreachable: rate limits are counted per instance until it is back',
        );
      }
      shared = false;
    };
    redis.on('error', lost);
    redis.on('close', () => lost());
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, REDIS_OPTIONS.connectTimeout + 100);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      redis.once('ready', done);
      redis.once('error', done);
    });
    return new RateLimits(config, log, redis);
  }

  private limiter(options: LimiterOptions): RateLimiterAbstract {
    const memory = new RateLimiterMemory(options);
    if (!this.redis) return memory;
    return new RateLimiterRedis({
      ...options,
      storeClient: this.redis,
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory,
    });
  }

  /**
   * Counts one request of the key and sets the RateLimit headers; throws RateLimitedError when
   * the key is over its limit.
   */
  async admitKey(keyId: string, environment: Environment, reply: FastifyReply): Promise<void> {
    const limit = environment === 'live' ? this.config.rateLimitLive : this.config.rateLimitTest;
    let state: RateLimiterRes;
    let refused = false;
    try {
      state = await this.perKey[environment].consume(keyId);
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) {
        this.log.warn({ err: outcome }, 'rate limiter failed; request let through');
        return;
      }
      state = outcome;
      refused = true;
    }
    const reset = secondsUntil(state.msBeforeNext);
    reply.header('ratelimit-policy', `${POLICY};q=${limit};w=${KEY_WINDOW_SECONDS}`);
    reply.header('ratelimit', `${POLICY};r=${state.remainingPoints};t=${reset}`);
    if (refused) {
      throw new RateLimitedError(
        `Too many requests for this API key: at most ${limit} a second. Retry after the time in Retry-After.`,
        Math.max(1, reset),
      );
    }
  }

  /** Throws RateLimitedError while the address has too many recent failed authentications. */
  async refuseIfBlocked(address: string): Promise<void> {
    let state: RateLimiterRes | null;
    try {
      state = await this.authFailures.get(address);
    } catch (error) {
      this.log.warn({ err: error }, 'failed-authentication limiter failed; request let through');
      return;
    }
    if (state && state.consumedPoints >= this.config.authFailureLimit) {
      throw new RateLimitedError(
        'Too many failed authentications from this address. Retry after the time in Retry-After.',
        Math.max(1, secondsUntil(state.msBeforeNext)),
      );
    }
  }

  /** Counts a presented key that was unknown or revoked against the address it came from. */
  async noteAuthFailure(address: string): Promise<void> {
    try {
      await this.authFailures.penalty(address);
    } catch (error) {
      this.log.warn({ err: error }, 'failed-authentication limiter failed');
    }
  }

  async close(): Promise<void> {
    if (!this.redis) return;
    this.redis.removeAllListeners();
    this.redis.on('error', () => undefined);
    await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}
