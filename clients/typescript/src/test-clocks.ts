// Test clocks: simulated time for customers of the test environment (test keys only).
import type { Operations } from './operations.ts';
import { segment } from './operations.ts';
import { sleep, type RequestOptions, type WithResponse } from './transport.ts';
import type { Body, Query, TestClock } from './types.ts';

export interface AdvanceAndWaitOptions extends RequestOptions {
  /** Between two looks at the clock (default 500 ms). */
  pollMs?: number;
  /** How long the advance may take before TestClockTimeoutError (default 60 s). */
  timeoutMs?: number;
}

/** An advance was still running when `advanceAndWait` gave up waiting; it goes on. */
export class TestClockTimeoutError extends Error {
  override readonly name = 'TestClockTimeoutError';
  /** The clock as last seen, still `advancing`. */
  readonly clock: TestClock;

  constructor(clock: TestClock, timeoutMs: number) {
    super(
      `Test clock ${clock.id} is still advancing to ${clock.advancingTo} after ${timeoutMs} ms; it goes on, look again later.`,
    );
    this.clock = clock;
  }
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`advanceAndWait: ${name} must be a positive number, not ${value}`);
  }
  return value;
}

export function testClocksResource(api: Operations) {
  const path = (id: string, action = '') => `/v1/test-clocks/${segment(id)}${action}`;
  const get = (id: string, options?: RequestOptions) =>
    api.call<'getTestClock'>('GET', path(id), options);
  const advance = (id: string, body: Body<'advanceTestClock'>, options?: RequestOptions) =>
    api.call<'advanceTestClock'>('POST', path(id, '/advance'), { ...options, body });
  return {
    create: (body: Body<'createTestClock'>, options?: RequestOptions) =>
      api.call<'createTestClock'>('POST', '/v1/test-clocks', { ...options, body }),
    get,
    list: (query?: Query<'listTestClocks'>) => api.list<'listTestClocks'>('/v1/test-clocks', query),
    /** Deletes it with its customers' subscriptions and draft invoices. */
    delete: (id: string, options?: RequestOptions) =>
      api.call<'deleteTestClock'>('DELETE', path(id), options),
    /**
     * Starts moving the clock forward to `frozenTime`: answered at once with `status:
     * advancing`; everything due in between runs in the background, then the clock is `ready`.
     */
    advance,
    /**
     * Advances the clock and waits until it is `ready` (looking every `pollMs`); returns the
     * ready clock, or throws TestClockTimeoutError after `timeoutMs` (the advance goes on).
     * `idempotencyKey` and `signal` apply to the advance, `signal` to the waiting too.
     */
    advanceAndWait: async (
      id: string,
      frozenTime: string,
      options: AdvanceAndWaitOptions = {},
    ): Promise<WithResponse<TestClock>> => {
      const { pollMs = 500, timeoutMs = 60_000, ...request } = options;
      positive('pollMs', pollMs);
      positive('timeoutMs', timeoutMs);
      const deadline = Date.now() + timeoutMs;
      let clock: WithResponse<TestClock> = await advance(id, { frozenTime }, request);
      while (clock.status !== 'ready') {
        const left = deadline - Date.now();
        if (left <= 0) throw new TestClockTimeoutError(clock, timeoutMs);
        await sleep(Math.min(pollMs, left), request.signal);
        clock = await get(id, { signal: request.signal });
      }
      return clock;
    },
  };
}
