// When to try a failed delivery again. The contract's schedule: after about 5 s, 5 min,
// 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (about 3 days in all), each with jitter so that
// deliveries that failed together (a receiver's outage) do not all come back at once.
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];
/** The first attempt and one per step of the schedule. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** Each delay is drawn from ±10 % around the schedule. */
export const JITTER = 0.1;
/** A receiver may ask for a pause (Retry-After) of up to a day, no more. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;
/** An endpoint that has failed every attempt for this long is disabled. */
export const FAILING_ENDPOINT_DISABLED_AFTER_MS = 5 * 24 * HOUR;

/**
 * The delay before the next attempt after failed attempt number `attempt` (1-based), or
 * null when the schedule is exhausted. A receiver's Retry-After is honoured: the next attempt
 * comes no sooner than it asks (capped at a day), nor sooner than the schedule says.
 */
export function nextAttemptDelay(
  attempt: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = RETRY_SCHEDULE_MS[Math.max(attempt, 1) - 1]!;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  if (retryAfterMs === null) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** Retry-After as delta-seconds or an HTTP date, in milliseconds from `now`; null if absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now: number): number | null {
  if (header === undefined) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[a-z]/i.test(text)) return null;
  return Math.max(0, date - now);
}
