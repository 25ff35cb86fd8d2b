import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  JITTER,
  MAX_ATTEMPTS,
  nextAttemptDelay,
  parseRetryAfter,
  RETRY_SCHEDULE_MS,
} from '../../src/webhooks/retry.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('retry schedule', () => {
  it('follows the contract: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h', () => {
    assert.deepEqual(RETRY_SCHEDULE_MS, [
      5000,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      14 * HOUR,
      20 * HOUR,
      24 * HOUR,
    ]);
    assert.equal(MAX_ATTEMPTS, 10);
    const total = RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    assert.ok(total > 3 * 24 * HOUR && total < 3.5 * 24 * HOUR, 'about 3 days in all');
  });

  it('jitters each step within ±10 %', () => {
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const base = RETRY_SCHEDULE_MS[attempt - 1]!;
      assert.equal(
        nextAttemptDelay(attempt, null, () => 0),
        Math.round(base * (1 - JITTER)),
      );
      assert.equal(
        nextAttemptDelay(attempt, null, () => 0.5),
        base,
      );
      const delay = nextAttemptDelay(attempt, null)!;
      assert.ok(delay >= base * 0.9 && delay <= base * 1.1, `${attempt}: ${delay}`);
    }
  });

  it('stops after the last step', () => {
    assert.equal(nextAttemptDelay(MAX_ATTEMPTS, null), null);
    assert.equal(nextAttemptDelay(MAX_ATTEMPTS + 3, 1000), null);
  });

  it('waits at least as long as Retry-After asks, up to a day', () => {
    assert.equal(
      nextAttemptDelay(1, 120_000, () => 0.5),
      120_000,
    );
    assert.equal(
      nextAttemptDelay(2, 1000, () => 0.5),
      5 * MINUTE,
    );
    assert.equal(
      nextAttemptDelay(1, 7 * 24 * HOUR, () => 0.5),
      24 * HOUR,
    );
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('30', now), 30_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:02:00 GMT', now), 120_000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter(undefined, now), null);
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter('-5', now), null);
    assert.equal(parseRetryAfter('1.5', now), null);
  });
});
