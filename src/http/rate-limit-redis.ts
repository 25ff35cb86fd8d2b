// Rate limits shared through Redis by every instance: the connection (which logs each outage
// once) and the limiters, each insured by one in memory that counts while Redis is away.
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

// While Redis is away commands fail at once (no offline queue) and the limiters skip it until
// it is ready again; a Redis that hangs costs a request at most the command timeout.
const REDIS_OPTIONS = {
  enableOfflineQueue: false,
  connectTimeout: 1000,
  commandTimeout: 500,
  maxRetriesPerRequest: 0,
  retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
};

interface LimiterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
}

/** Connects to Redis, waiting at most its connect timeout; the limiters skip it while it is away. */
export async function connectRedis(url: string, log: FastifyBaseLogger): Promise<Redis> {
  const redis = new Redis(url, REDIS_OPTIONS);
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
  return redis;
}

/** A limiter counting in Redis, insured by one in this process's memory while Redis is away. */
export function sharedLimiter(redis: Redis, options: LimiterOptions): RateLimiterAbstract {
  return new RateLimiterRedis({
    ...options,
    storeClient: redis,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory(options),
  });
}
