// The one source of "now". Everything that reads the time is given a Clock by the composition
// root (src/composition.ts); only the system clock below reads the wall clock, so tests (and,
// later, test clocks) can drive time instead of waiting for it.

export interface Clock {
  /** The current instant. */
  now(): Date;
  /** The current instant in milliseconds since the epoch (no Date made: for hot paths). */
  nowMs(): number;
}

/** The wall clock: the process's one reading of real time. */
export const systemClock: Clock = {
  now: () => new Date(),
  nowMs: () => Date.now(),
};

/** Today's date in UTC (YYYY-MM-DD), as the clock says. */
export function todayUtcOf(clock: Clock): string {
  return clock.now().toISOString().slice(0, 10);
}
