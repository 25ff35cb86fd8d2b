// The rate limits' counters for an instance without Redis (./rate-limit.ts).
import type { Clock } from '../clock.ts';

export interface Window {
  points: number;
  endsAt: number;
}

/**
 * Fixed windows counted in this process's memory, for an instance without Redis. The same
 * windows as the shared limiters (a window opens with the first point and lasts its duration),
 * but answered synchronously: every request counts, and a promise per count was a measurable
 * share of the cheapest requests. Ended windows are dropped in one sweep now and then rather
 * than with a timer each.
 */
export class LocalWindows {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  private readonly durationMs: number;

  private readonly clock: Clock;

  constructor(durationMs: number, clock: Clock) {
    this.durationMs = durationMs;
    this.clock = clock;
    this.sweeper = setInterval(() => this.sweep(), Math.max(durationMs, 10_000));
    this.sweeper.unref();
  }

  /** Adds points to the key's open window (opening one if none is); the window after it. */
  add(key: string, points: number, now: number): Window {
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { points: 0, endsAt: now + this.durationMs };
      this.windows.set(key, window);
    }
    window.points += points;
    return window;
  }

  /** The key's open window, if it has one. */
  peek(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    return window !== undefined && window.endsAt > now ? window : undefined;
  }

  private sweep(): void {
    const now = this.clock.nowMs();
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
