// The sign-in throttle (docs/console.md, "Signing in"): failed sign-ins are counted per client
// address and per account (the e-mail typed, whether or not a user has it, so the throttle
// tells nothing about which exist) within a tenant, in fixed windows of 15 minutes. Past the
// limit every sign-in of that address or account is refused before its password is checked,
// until the window ends. The counters live in PostgreSQL, shared by every instance; with
// REDIS_URL in Redis instead (as the API's rate limits, src/http/rate-limit.ts).
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import { clearFailures, countFailures, selectFailures } from './throttle-store.ts';

export const WINDOW_SECONDS = 15 * 60;
/** Failures allowed per window: an account is guessed at slowly, an office shares an address. */
export const LIMITS = { account: 5, address: 30 } as const;
export type Subject = { kind: keyof typeof LIMITS; value: string };

export interface SignInThrottle {
  /** Seconds until the first of the subjects over its limit may try again; 0 when none is. */
  refusedFor(tenantId: string, subjects: readonly Subject[]): Promise<number>;
  failed(tenantId: string, subjects: readonly Subject[]): Promise<void>;
  /** A successful sign-in clears its account's failures (not its address's). */
  succeeded(tenantId: string, account: Subject): Promise<void>;
}

const key = (s: Subject) => `${s.kind}:${s.value}`;

export function databaseThrottle(db: Db, clock: Clock): SignInThrottle {
  const windowSince = () => new Date(clock.nowMs() - WINDOW_SECONDS * 1000);
  return {
    async refusedFor(tenantId, subjects) {
      const rows = await selectFailures(db, tenantId, subjects.map(key), windowSince());
      let wait = 0;
      for (const subject of subjects) {
        const row = rows.find((r) => r.subject === key(subject));
        if (!row || row.failures < LIMITS[subject.kind]) continue;
        const ends = row.window_start.getTime() + WINDOW_SECONDS * 1000;
        wait = Math.max(wait, Math.ceil((ends - clock.nowMs()) / 1000));
      }
      return wait;
    },
    failed: (tenantId, subjects) =>
      countFailures(db, tenantId, subjects.map(key), clock.now(), windowSince()),
    succeeded: (tenantId, account) => clearFailures(db, tenantId, key(account)),
  };
}

/** The same counts in Redis: one limiter per kind of subject, from `limiter`. */
export function redisThrottle(
  limiter: (kind: Subject['kind'], points: number) => RateLimiterAbstract,
): SignInThrottle {
  const limiters = {
    account: limiter('account', LIMITS.account),
    address: limiter('address', LIMITS.address),
  };
  const id = (tenantId: string, s: Subject) => `${tenantId}:${s.value}`;
  return {
    async refusedFor(tenantId, subjects) {
      let wait = 0;
      for (const subject of subjects) {
        const state = await limiters[subject.kind].get(id(tenantId, subject));
        if (state && state.consumedPoints >= LIMITS[subject.kind]) {
          wait = Math.max(wait, Math.ceil(state.msBeforeNext / 1000));
        }
      }
      return wait;
    },
    async failed(tenantId, subjects) {
      for (const subject of subjects) {
        await limiters[subject.kind].penalty(id(tenantId, subject), 1);
      }
    },
    async succeeded(tenantId, account) {
      await limiters.account.delete(id(tenantId, account));
    },
  };
}
