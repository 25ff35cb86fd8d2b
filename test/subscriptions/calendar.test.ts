import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  boundary,
  isTimeZone,
  localDate,
  nextBoundaryAfter,
  periodAt,
  type Recurrence,
} from '../../src/subscriptions/calendar.ts';

// The oracle below reads clocks with a formatter of its own and does calendar arithmetic on
// strings and Date.UTC, so it shares no code with the calendar it checks.
const readers = new Map<string, Intl.DateTimeFormat>();
/** What the zone's clocks show at an instant: 'YYYY-MM-DDTHH:MM:SS.mmm' (compares as text). */
function reading(instant: Date | number, zone: string): string {
  let reader = readers.get(zone);
  if (!reader) {
    reader = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    readers.set(zone, reader);
  }
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  const p = Object.fromEntries(reader.formatToParts(ms).map((part) => [part.type, part.value]));
  const millis = String(((ms % 1000) + 1000) % 1000).padStart(3, '0');
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}.${millis}`;
}

/** An instant whose local reading in `zone` is `local` (any of them, or one near a gap). */
function instantNear(local: string, zone: string): number {
  const naive = Date.parse(`${local}Z`);
  return naive - (Date.parse(`${reading(naive, zone)}Z`) - naive);
}

function at(local: string, zone: string): Date {
  const instant = new Date(instantNear(local, zone));
  assert.equal(reading(instant, zone), local, 'the test names a local time that exists');
  return instant;
}

/** The local reading the n-th boundary must show: the anchor's day clamped, its time kept. */
function target(anchorReading: string, every: Recurrence, n: number): string {
  const [year, month, day] = anchorReading.slice(0, 10).split('-').map(Number) as number[];
  const time = anchorReading.slice(11);
  const steps = n * every.intervalCount;
  let date: number;
  if (every.interval === 'day' || every.interval === 'week') {
    date = Date.UTC(year!, month! - 1, day! + steps * (every.interval === 'week' ? 7 : 1));
  } else {
    const first = new Date(
      Date.UTC(year!, month! - 1 + steps * (every.interval === 'year' ? 12 : 1), 1),
    );
    const lastDay = new Date(
      Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0),
    ).getUTCDate();
    date = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(day!, lastDay));
  }
  return `${new Date(date).toISOString().slice(0, 10)}T${time}`;
}

const HALF_HOUR = 1_800_000;
const HOUR = 3_600_000;

/**
 * Checks the contract's rule for one boundary and says which case it was: the local time
 * exists ('exact', and no earlier instant shows it), exists twice ('fold', and this is the
 * first), or does not exist ('gap', and this is the first instant after the gap).
 */
function checkRule(b: Date, expected: string, zone: string): 'exact' | 'fold' | 'gap' {
  const shown = reading(b, zone);
  if (shown !== expected) {
    assert.ok(shown > expected, `${b.toISOString()} shows ${shown}, after ${expected}`);
    assert.ok(reading(b.getTime() - 1, zone) < expected, `${b.toISOString()} is the jump`);
    return 'gap';
  }
  // Folds in these zones are 30 or 60 minutes long.
  for (const fold of [HALF_HOUR, HOUR]) {
    assert.ok(reading(b.getTime() - fold, zone) < expected, `${b.toISOString()} is the first`);
  }
  const twice = [HALF_HOUR, HOUR].some((fold) => reading(b.getTime() + fold, zone) === expected);
  return twice ? 'fold' : 'exact';
}

const zones = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Pacific/Chatham',
  'America/Sao_Paulo',
  'Pacific/Apia',
];

const recurrence = fc.oneof(
  fc.record({
    interval: fc.constant('day' as const),
    intervalCount: fc.integer({ min: 1, max: 365 }),
  }),
  fc.record({
    interval: fc.constant('week' as const),
    intervalCount: fc.integer({ min: 1, max: 52 }),
  }),
  fc.record({
    interval: fc.constant('month' as const),
    intervalCount: fc.integer({ min: 1, max: 12 }),
  }),
  fc.record({ interval: fc.constant('year' as const), intervalCount: fc.constant(1) }),
);

const two = (n: number) => String(n).padStart(2, '0');
/** Anchors as local readings, weighted towards month ends, Feb 29 and the small hours (where
 * gaps and folds are), some moved by 30 or 60 minutes to land on a fold's second reading. */
const anchor = fc
  .record({
    zone: fc.constantFrom(...zones),
    date: fc.oneof(
      fc
        .record({
          year: fc.integer({ min: 1995, max: 2045 }),
          month: fc.integer({ min: 1, max: 12 }),
          day: fc.oneof(fc.integer({ min: 1, max: 31 }), fc.integer({ min: 28, max: 31 })),
        })
        .map(({ year, month, day }) => {
          const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
          return `${year}-${two(month)}-${two(Math.min(day, last))}`;
        }),
      fc.constantFrom('2024-02-29', '2028-02-29', '2016-02-29', '2026-01-31', '2011-12-29'),
    ),
    hour: fc.oneof(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 4 })),
    minute: fc.oneof(fc.constantFrom(0, 15, 30, 45), fc.integer({ min: 0, max: 59 })),
    second: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 59 })),
    millis: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999 })),
    shift: fc.constantFrom(0, 0, HALF_HOUR, HOUR),
  })
  .map(({ zone, date, hour, minute, second, millis, shift }) => {
    const local = `${date}T${two(hour)}:${two(minute)}:${two(second)}.${String(millis).padStart(3, '0')}`;
    return { zone, anchor: new Date(instantNear(local, zone) + shift) };
  });

/** Boundary indexes that cover about two years around the anchor. */
function indexes(every: Recurrence): number[] {
  const days = { day: 1, week: 7, month: 30, year: 365 }[every.interval] * every.intervalCount;
  const count = Math.max(3, Math.ceil(730 / days));
  return Array.from({ length: count + 3 }, (_, i) => i - 2);
}

describe('the billing calendar: properties', () => {
  it('puts every boundary at the anchor’s local time (or just after a gap), in increasing order, never longer than its interval plus the DST hour', () => {
    fc.assert(
      fc.property(anchor, recurrence, ({ zone, anchor }, every) => {
        const anchorReading = reading(anchor, zone);
        const ns = indexes(every);
        const bs = ns.map((n) => boundary(anchor, zone, every, n));
        assert.equal(boundary(anchor, zone, every, 0).getTime(), anchor.getTime());
        const kinds = ns.map((n, i) =>
          n === 0 ? 'exact' : checkRule(bs[i]!, target(anchorReading, every, n), zone),
        );
        for (let i = 0; i + 1 < bs.length; i++) {
          const [current, next] = [bs[i]!.getTime(), bs[i + 1]!.getTime()];
          // Equal only where a whole local day was skipped (Pacific/Apia, 2011-12-30).
          assert.ok(next > current || (next === current && kinds[i] === 'gap'), 'increasing');
          const nominal =
            Date.parse(`${target(anchorReading, every, ns[i + 1]!)}Z`) -
            Date.parse(`${target(anchorReading, every, ns[i]!)}Z`);
          assert.ok(next - current <= nominal + HOUR, 'no longer than the interval + 1 h');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds the period containing any instant, agreeing with boundary, and the next boundary after it', () => {
    fc.assert(
      fc.property(
        anchor,
        recurrence,
        fc.integer({ min: -800 * 86_400_000, max: 800 * 86_400_000 }),
        fc.boolean(),
        ({ zone, anchor }, every, offset, onBoundary) => {
          let t = new Date(anchor.getTime() + offset);
          if (onBoundary) t = periodAt(anchor, zone, every, t).start;
          const period = periodAt(anchor, zone, every, t);
          assert.ok(period.start <= t && t < period.end);
          assert.equal(
            period.start.getTime(),
            boundary(anchor, zone, every, period.index).getTime(),
          );
          assert.equal(
            period.end.getTime(),
            boundary(anchor, zone, every, period.index + 1).getTime(),
          );
          assert.equal(period.index >= 0, t >= anchor);
          const next = nextBoundaryAfter(anchor, zone, every, t);
          assert.ok(next > t);
          assert.equal(next.getTime(), period.end.getTime());
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the billing calendar: every day of two years at the times clocks skip or repeat', () => {
  const daily: Recurrence = { interval: 'day', intervalCount: 1 };
  // [zone, local time, first day, days it is skipped, days it is repeated] over two years.
  const cases: [string, string, string, number, number][] = [
    ['Europe/Berlin', '02:30:00.000', '2025-01-01', 2, 2],
    ['America/New_York', '02:30:00.000', '2025-01-01', 2, 0],
    ['America/New_York', '01:30:00.250', '2025-01-01', 0, 2],
    ['Australia/Lord_Howe', '02:15:00.000', '2025-01-01', 2, 0],
    ['Australia/Lord_Howe', '01:45:00.000', '2025-01-01', 0, 2],
    ['Pacific/Chatham', '03:00:00.000', '2025-01-01', 2, 2],
    ['America/Sao_Paulo', '00:30:00.000', '2017-01-01', 2, 0],
    ['America/Sao_Paulo', '23:30:00.000', '2017-01-01', 0, 2],
    ['Pacific/Apia', '03:30:00.000', '2014-01-01', 2, 2],
  ];
  for (const [zone, time, first, gaps, folds] of cases) {
    it(`keeps the rule in ${zone} at ${time} (skipped ${gaps}, repeated ${folds} times)`, () => {
      const anchorReading = `${first}T${time}`;
      const start = at(anchorReading, zone);
      const seen = { exact: 0, gap: 0, fold: 0 };
      for (let n = 1; n <= 730; n++) {
        seen[checkRule(boundary(start, zone, daily, n), target(anchorReading, daily, n), zone)]++;
      }
      assert.deepEqual(seen, { exact: 730 - gaps - folds, gap: gaps, fold: folds });
    });
  }

  it('finds neither gaps nor folds in UTC and Asia/Kolkata', () => {
    for (const zone of ['UTC', 'Asia/Kolkata']) {
      const start = at('2025-01-01T02:30:00.000', zone);
      for (let n = 1; n <= 730; n++) {
        const b = boundary(start, zone, daily, n);
        assert.equal(checkRule(b, target('2025-01-01T02:30:00.000', daily, n), zone), 'exact');
      }
    }
  });
});

const monthly: Recurrence = { interval: 'month', intervalCount: 1 };
function localDates(anchor: Date, zone: string, every: Recurrence, n: number): string[] {
  return Array.from({ length: n }, (_, i) => localDate(boundary(anchor, zone, every, i), zone));
}
const iso = (instants: Date[]) => instants.map((d) => d.toISOString());

describe('the billing calendar: worked examples', () => {
  it('keeps a Jan 31 anchor at month end and restores the 31st: Feb 28, Mar 31, Apr 30', () => {
    const anchor = new Date('2026-01-31T09:00:00Z');
    assert.deepEqual(localDates(anchor, 'UTC', monthly, 5), [
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
    ]);
    assert.deepEqual(localDates(new Date('2028-01-31T09:00:00Z'), 'UTC', monthly, 3), [
      '2028-01-31',
      '2028-02-29',
      '2028-03-31',
    ]);
    assert.equal(boundary(anchor, 'UTC', monthly, 1).toISOString(), '2026-02-28T09:00:00.000Z');
    assert.equal(boundary(anchor, 'UTC', monthly, -2).toISOString(), '2025-11-30T09:00:00.000Z');
  });

  it('bills a yearly Feb 29 anchor on Feb 28 in common years and Feb 29 in leap years', () => {
    const yearly: Recurrence = { interval: 'year', intervalCount: 1 };
    assert.deepEqual(localDates(new Date('2028-02-29T00:00:00Z'), 'UTC', yearly, 5), [
      '2028-02-29',
      '2029-02-28',
      '2030-02-28',
      '2031-02-28',
      '2032-02-29',
    ]);
  });

  it('bills quarterly from Jan 31 on Apr 30, Jul 31, Oct 31 and Jan 31', () => {
    const quarterly: Recurrence = { interval: 'month', intervalCount: 3 };
    assert.deepEqual(localDates(new Date('2026-01-31T12:00:00Z'), 'UTC', quarterly, 5), [
      '2026-01-31',
      '2026-04-30',
      '2026-07-31',
      '2026-10-31',
      '2027-01-31',
    ]);
  });

  it('moves a Europe/Berlin 02:30 boundary to 03:00 on the day clocks spring forward and to the first 02:30 when they fall back', () => {
    const zone = 'Europe/Berlin';
    // 2026: clocks jump 02:00 → 03:00 on Mar 29 and fall 03:00 → 02:00 on Oct 25.
    const spring = at('2026-01-29T02:30:00.000', zone);
    assert.deepEqual(iso([1, 2, 3].map((n) => boundary(spring, zone, monthly, n))), [
      '2026-02-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST: the first instant after the gap
      '2026-04-29T00:30:00.000Z', // 02:30 CEST
    ]);
    const fall = at('2026-01-25T02:30:00.000', zone);
    assert.equal(boundary(fall, zone, monthly, 9).toISOString(), '2026-10-25T00:30:00.000Z'); // CEST
    assert.equal(boundary(fall, zone, monthly, 10).toISOString(), '2026-11-25T01:30:00.000Z'); // CET
  });

  it('does the same in America/New_York: 02:30 becomes 03:00 EDT, 01:30 is the EDT one', () => {
    const zone = 'America/New_York';
    // 2026: clocks jump 02:00 → 03:00 on Mar 8 and fall 02:00 → 01:00 on Nov 1.
    const spring = at('2026-01-08T02:30:00.000', zone);
    assert.equal(boundary(spring, zone, monthly, 2).toISOString(), '2026-03-08T07:00:00.000Z');
    assert.equal(boundary(spring, zone, monthly, 3).toISOString(), '2026-04-08T06:30:00.000Z');
    const fall = at('2026-01-01T01:30:00.000', zone);
    assert.equal(boundary(fall, zone, monthly, 10).toISOString(), '2026-11-01T05:30:00.000Z');
    assert.equal(boundary(fall, zone, monthly, 11).toISOString(), '2026-12-01T06:30:00.000Z');
  });

  it('gives a daily subscription at local midnight a 23-hour day in spring and a 25-hour day in autumn', () => {
    const zone = 'Europe/Berlin';
    const daily: Recurrence = { interval: 'day', intervalCount: 1 };
    const anchor = at('2026-01-01T00:00:00.000', zone);
    const spring = periodAt(anchor, zone, daily, at('2026-03-29T12:00:00.000', zone));
    assert.deepEqual(iso([spring.start, spring.end]), [
      '2026-03-28T23:00:00.000Z',
      '2026-03-29T22:00:00.000Z',
    ]);
    assert.equal(spring.end.getTime() - spring.start.getTime(), 23 * HOUR);
    const autumn = periodAt(anchor, zone, daily, at('2026-10-25T12:00:00.000', zone));
    assert.equal(autumn.end.getTime() - autumn.start.getTime(), 25 * HOUR);
    assert.equal(autumn.index, 297);
    const ny = 'America/New_York';
    const nyAnchor = at('2026-01-01T00:00:00.000', ny);
    const march8 = periodAt(nyAnchor, ny, daily, at('2026-03-08T12:00:00.000', ny));
    assert.equal(march8.end.getTime() - march8.start.getTime(), 23 * HOUR);
  });

  it('moves a Lord Howe 02:15 boundary to 02:30, where clocks jump by half an hour', () => {
    const zone = 'Australia/Lord_Howe';
    const anchor = at('2025-10-04T02:15:00.000', zone);
    const b = boundary(anchor, zone, { interval: 'day', intervalCount: 1 }, 1);
    assert.equal(reading(b, zone), '2025-10-05T02:30:00.000');
    assert.equal(b.toISOString(), '2025-10-04T15:30:00.000Z'); // +11:00
  });

  it('keeps the anchor’s milliseconds, and the anchor is its own boundary even on a repeated hour', () => {
    const zone = 'America/New_York';
    const second130 = new Date('2026-11-01T06:30:00.123Z'); // 01:30:00.123 EST, the repeat
    const daily: Recurrence = { interval: 'day', intervalCount: 1 };
    assert.equal(boundary(second130, zone, daily, 0).getTime(), second130.getTime());
    assert.equal(boundary(second130, zone, daily, 1).toISOString(), '2026-11-02T06:30:00.123Z');
    assert.equal(boundary(second130, zone, daily, -1).toISOString(), '2026-10-31T05:30:00.123Z');
  });

  it('maps every time of the day Pacific/Apia skipped (2011-12-30) to the first instant of Dec 31', () => {
    const zone = 'Pacific/Apia';
    const daily: Recurrence = { interval: 'day', intervalCount: 1 };
    const skipped = new Date('2011-12-30T10:00:00Z'); // 2011-12-31 00:00 +14:00
    const ten = at('2011-12-29T10:00:00.000', zone);
    assert.equal(boundary(ten, zone, daily, 1).getTime(), skipped.getTime());
    assert.equal(reading(boundary(ten, zone, daily, 2), zone), '2011-12-31T10:00:00.000');
    // At midnight Dec 30 and Dec 31 meet: the period between them is empty and never returned.
    const midnight = at('2011-12-29T00:00:00.000', zone);
    assert.equal(boundary(midnight, zone, daily, 1).getTime(), skipped.getTime());
    assert.equal(boundary(midnight, zone, daily, 2).getTime(), skipped.getTime());
    const period = periodAt(midnight, zone, daily, skipped);
    assert.equal(period.index, 2);
    assert.equal(period.start.getTime(), skipped.getTime());
    assert.equal(reading(period.end, zone), '2012-01-01T00:00:00.000');
    const before = periodAt(midnight, zone, daily, new Date(skipped.getTime() - 1));
    assert.equal(before.index, 0);
    assert.equal(before.end.getTime(), skipped.getTime());
    assert.equal(
      nextBoundaryAfter(midnight, zone, daily, before.start).getTime(),
      skipped.getTime(),
    );
  });

  it('counts periods before the anchor with negative indexes', () => {
    const anchor = new Date('2026-01-31T00:00:00Z');
    const period = periodAt(anchor, 'UTC', monthly, new Date('2025-12-15T00:00:00Z'));
    assert.equal(period.index, -2);
    assert.deepEqual(iso([period.start, period.end]), [
      '2025-11-30T00:00:00.000Z',
      '2025-12-31T00:00:00.000Z',
    ]);
  });

  it('prints a period as its first and last local day', () => {
    const zone = 'Europe/Berlin';
    const anchor = at('2026-01-31T00:00:00.000', zone);
    const { start, end } = periodAt(anchor, zone, monthly, at('2026-02-10T00:00:00.000', zone));
    assert.deepEqual(
      [localDate(start, zone), localDate(new Date(end.getTime() - 1000), zone)],
      ['2026-01-31', '2026-02-27'],
    );
    assert.equal(localDate(new Date('2026-03-29T22:30:00Z'), zone), '2026-03-30');
    assert.equal(localDate(new Date('2026-03-29T22:30:00Z'), 'UTC'), '2026-03-29');
  });
});

describe('the billing calendar: inputs', () => {
  it('knows IANA zone names and nothing else', () => {
    for (const zone of [...zones, 'Asia/Calcutta', 'Etc/GMT-14'])
      assert.equal(isTimeZone(zone), true);
    for (const name of ['', 'Mars/Olympus', '+01:00', '-05:00', 'Europe/', 'Z']) {
      assert.equal(isTimeZone(name), false, name);
    }
  });

  it('refuses an unknown zone, an interval count below 1 and a fractional n', () => {
    const anchor = new Date('2026-01-01T00:00:00Z');
    assert.throws(() => boundary(anchor, 'Mars/Olympus', monthly, 1), RangeError);
    assert.throws(
      () => boundary(anchor, 'UTC', { interval: 'month', intervalCount: 0 }, 1),
      RangeError,
    );
    assert.throws(
      () => boundary(anchor, 'UTC', { interval: 'month', intervalCount: 1.5 }, 1),
      RangeError,
    );
    assert.throws(() => boundary(anchor, 'UTC', monthly, 0.5), RangeError);
    assert.throws(() => boundary(new Date(NaN), 'UTC', monthly, 1), RangeError);
    assert.throws(() => periodAt(anchor, 'UTC', monthly, new Date(NaN)), RangeError);
    assert.throws(() => boundary(new Date('9999-12-01T00:00:00Z'), 'UTC', monthly, 1), RangeError);
  });
});
