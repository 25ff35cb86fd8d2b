// The one source of "now", and of timers. Everything that reads the time or waits for it is
// given a Clock by the composition root (src/composition.ts); only the system clock below reads
// the wall clock and sets real timers, so tests (and, later, test clocks) can drive time
// instead of waiting for it. Durations measured for metrics (performance.now()) are real
// elapsed time, not "now", and stay outside.

export interface Clock {
  /** The current instant. */
  now(): Date;
  /** The current instant in milliseconds since the epoch (no Date made: for hot paths). */
  nowMs(): number;
  /**
   * Resolves once `ms` have passed on this clock, or at once when `signal` aborts (never
   * rejects): the worker's schedule (polls, dunning runs, purges) waits through this.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The wall clock: the process's one reading of real time. */
export const systemClock: Clock = {
  now: () => new Date(),
  nowMs: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** The UTC date (YYYY-MM-DD) of an instant: due dates are calendar dates, compared in UTC. */
export function utcDateOf(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** Today's date in UTC (YYYY-MM-DD), as the clock says. */
export function todayUtcOf(clock: Clock): string {
  return utcDateOf(clock.now());
}

/**
 * A clock that stands still at `at`: what a step of a test clock's advance (or a run at a
 * given instant) hands to the code it calls, so that what it records carries that instant.
 */
export function fixedClock(at: Date): Clock {
  return {
    now: () => new Date(at.getTime()),
    nowMs: () => at.getTime(),
    sleep: () => Promise.resolve(),
  };
}
