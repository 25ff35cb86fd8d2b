import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { boundary, periodAt, type Period } from '../../src/subscriptions/calendar.ts';
import { prorate, remainingFraction } from '../../src/subscriptions/proration.ts';

const DAY = 86_400_000;
const april: Period = {
  start: new Date('2026-04-01T00:00:00Z'),
  end: new Date('2026-05-01T00:00:00Z'),
};
const day10 = new Date('2026-04-10T00:00:00Z');

/** A period of 1 second to 400 days from a start in 2000–2040, with two instants inside it. */
const periodWithInstants = fc
  .record({
    start: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
    length: fc.oneof(
      fc.integer({ min: 1000, max: 400 * DAY }),
      fc.integer({ min: 1000, max: 10_000 }),
    ),
    a: fc.double({ min: 0, max: 1, noNaN: true }),
    b: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ start, length, a, b }) => {
    const inside = (x: number) => new Date(start + Math.floor(x * length));
    const [t1, t2] = [inside(Math.min(a, b)), inside(Math.max(a, b))];
    return { period: { start: new Date(start), end: new Date(start + length) }, t1, t2 };
  });
const amount = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
);

describe('proration: worked examples', () => {
  it('leaves 21/30 of a 30-day month from day 10: a 3,000 price credits 2,100, a 5,000 price charges 3,500', () => {
    assert.deepEqual(remainingFraction(april, day10), {
      numerator: 21n * 86_400n,
      denominator: 30n * 86_400n,
    });
    assert.equal(-prorate(3000, april, day10), -2100);
    assert.equal(prorate(5000, april, day10), 3500);
  });

  it('prorates the stub from a trial’s end to a later anchor over the whole period ending at the anchor', () => {
    // Trial ends on Mar 20; billing is anchored on the 1st: the stub [Mar 20, Apr 1) is 12 of
    // March's 31 days.
    const anchor = new Date('2026-04-01T00:00:00Z');
    const trialEnd = new Date('2026-03-20T00:00:00Z');
    const period = periodAt(anchor, 'UTC', { interval: 'month', intervalCount: 1 }, trialEnd);
    assert.equal(period.end.getTime(), anchor.getTime());
    assert.equal(period.start.toISOString(), '2026-03-01T00:00:00.000Z');
    assert.equal(prorate(3000, period, trialEnd), 1161); // 3000 × 12/31 = 1161.29…
  });

  it('counts the real seconds of a DST day: 23 hours in spring, 25 in autumn', () => {
    const zone = 'Europe/Berlin';
    const daily = { interval: 'day' as const, intervalCount: 1 };
    const anchor = new Date('2025-12-31T23:00:00Z'); // 2026-01-01 00:00 CET
    const spring = periodAt(anchor, zone, daily, new Date('2026-03-29T10:00:00Z'));
    // Noon CEST on Mar 29 leaves 12 of the day's 23 hours.
    assert.deepEqual(remainingFraction(spring, new Date('2026-03-29T10:00:00Z')), {
      numerator: 12n * 3600n,
      denominator: 23n * 3600n,
    });
    assert.equal(prorate(2300, spring, new Date('2026-03-29T10:00:00Z')), 1200);
    const autumn = periodAt(anchor, zone, daily, new Date('2026-10-25T11:00:00Z'));
    assert.deepEqual(remainingFraction(autumn, new Date('2026-10-25T11:00:00Z')), {
      numerator: 12n * 3600n,
      denominator: 25n * 3600n,
    });
  });

  it('rounds halves away from zero, for credits as for charges', () => {
    const twoSeconds: Period = { start: new Date(0), end: new Date(2000) };
    const half = new Date(1000);
    assert.equal(prorate(5, twoSeconds, half), 3);
    assert.equal(prorate(-5, twoSeconds, half), -3);
    assert.equal(prorate(3, twoSeconds, half), 2);
    assert.equal(prorate(-3, twoSeconds, half), -2);
    assert.equal(prorate(1, twoSeconds, half), 1);
    assert.equal(prorate(-1, twoSeconds, half), -1);
  });

  it('counts whole seconds: milliseconds are cut off every instant', () => {
    const period: Period = { start: new Date(999), end: new Date(3999) }; // seconds 0 to 3
    assert.deepEqual(remainingFraction(period, new Date(1500)), { numerator: 2n, denominator: 3n });
    assert.equal(prorate(300, period, new Date(1999), new Date(2001)), 100);
  });

  it('prorates exactly where floating point would not: the largest amount over an odd period', () => {
    const period: Period = { start: new Date(0), end: new Date(3000) };
    // (2^53 − 1) × 2/3 = 6004799503160660.67 → …661; with f as a double, amount × f gives …660.
    assert.equal(prorate(Number.MAX_SAFE_INTEGER, period, new Date(1000)), 6004799503160661);
  });
});

describe('proration: properties', () => {
  it('credits the old price and charges the new one over a whole period by exactly the difference', () => {
    fc.assert(
      fc.property(periodWithInstants, amount, amount, ({ period }, oldPrice, newPrice) => {
        const credit = -prorate(oldPrice, period, period.start);
        const charge = prorate(newPrice, period, period.start);
        assert.equal(charge + credit, newPrice - oldPrice);
        assert.deepEqual(remainingFraction(period, period.start), {
          numerator: remainingFraction(period, period.start).denominator,
          denominator: remainingFraction(period, period.start).denominator,
        });
        assert.equal(prorate(newPrice, period, period.end), 0);
      }),
    );
  });

  it('splits [t1, e) at t2 into pieces that add up to the whole within 1', () => {
    fc.assert(
      fc.property(periodWithInstants, amount, ({ period, t1, t2 }, price) => {
        const whole = prorate(price, period, t1);
        const pieces = prorate(price, period, t1, t2) + prorate(price, period, t2);
        assert.ok(Math.abs(pieces - whole) <= 1, `${pieces} vs ${whole}`);
      }),
    );
  });

  it('is odd in the amount, never larger than it, and grows with the time left', () => {
    fc.assert(
      fc.property(periodWithInstants, amount, ({ period, t1, t2 }, price) => {
        assert.equal(prorate(-price, period, t1), -prorate(price, period, t1) || 0);
        const [early, late] = [prorate(price, period, t1), prorate(price, period, t2)];
        assert.ok(Math.abs(early) <= Math.abs(price));
        assert.ok(Math.abs(late) <= Math.abs(early));
      }),
    );
  });

  it('is the amount times the remaining fraction, rounded once', () => {
    fc.assert(
      fc.property(periodWithInstants, amount, ({ period, t1 }, price) => {
        const { numerator, denominator } = remainingFraction(period, t1);
        const exact = BigInt(price) * numerator; // compare 2 × |result − exact/denominator| ≤ 1
        const result = BigInt(prorate(price, period, t1));
        const twiceError = 2n * (result * denominator - exact);
        assert.ok(twiceError <= denominator && twiceError >= -denominator);
        // A half rounds away from zero.
        if (twiceError === denominator || twiceError === -denominator) {
          assert.equal(result * denominator > exact, price > 0);
        }
      }),
    );
  });

  it('prorates over monthly periods of real calendars the same way', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'),
        fc.integer({ min: 0, max: 24 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        amount,
        (zone, n, x, price) => {
          const anchor = new Date('2026-01-31T01:30:00Z');
          const every = { interval: 'month' as const, intervalCount: 1 };
          const start = boundary(anchor, zone, every, n);
          const end = boundary(anchor, zone, every, n + 1);
          const t = new Date(start.getTime() + Math.floor(x * (end.getTime() - start.getTime())));
          const period = { start, end };
          const left = prorate(price, period, t);
          const used = prorate(price, period, start, t);
          assert.ok(Math.abs(left + used - price) <= 1);
        },
      ),
    );
  });
});

describe('proration: inputs', () => {
  it('refuses instants outside the period, a reversed span, an empty period and a fractional amount', () => {
    const before = new Date('2026-03-31T23:59:59Z');
    const after = new Date('2026-05-01T00:00:01Z');
    assert.throws(() => remainingFraction(april, before), RangeError);
    assert.throws(() => remainingFraction(april, after), RangeError);
    assert.throws(() => prorate(100, april, before), RangeError);
    assert.throws(() => prorate(100, april, day10, after), RangeError);
    assert.throws(() => prorate(100, april, day10, april.start), RangeError);
    assert.throws(
      () => prorate(100, { start: april.start, end: april.start }, april.start),
      RangeError,
    );
    assert.throws(
      () => prorate(100, { start: new Date(0), end: new Date(999) }, new Date(0)),
      RangeError,
    );
    assert.throws(() => prorate(1.5, april, day10), RangeError);
    assert.throws(() => prorate(100, april, new Date(NaN)), RangeError);
  });

  it('allows the period’s end itself: nothing is left', () => {
    assert.deepEqual(remainingFraction(april, april.end), {
      numerator: 0n,
      denominator: 30n * 86_400n,
    });
    assert.equal(prorate(100, april, april.end), 0);
  });
});
