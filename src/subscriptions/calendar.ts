// The billing calendar: period boundaries on a time zone's local calendar (docs/subscriptions.md,
// "The billing calendar"). Pure functions of instants and an IANA zone name; the zone rules come
// from Intl (the ICU time-zone data that ships with Node), so no time-zone library is needed:
// Intl turns an instant into the local clock reading, and the reverse (a local reading into an
// instant) is found by trying the offsets in force a day either side and, inside a gap, by
// bisecting for the instant the clocks jump.
//
// Local clock readings are handled as "local milliseconds": the reading written as if it were
// UTC (2026-03-29 02:30 local → Date.UTC(2026, 2, 29, 2, 30)), so calendar arithmetic is plain
// UTC date arithmetic and a reading compares with another as numbers do.

export type IntervalUnit = 'day' | 'week' | 'month' | 'year';
export interface Recurrence {
  interval: IntervalUnit;
  intervalCount: number;
}
/** [start, end): start included, end excluded. */
export interface Period {
  start: Date;
  end: Date;
}

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;
// Intl writes years before 1 AD as era years (1 BC is "1"), and the API's dates stop at 9999;
// a day's margin either side keeps every local reading inside years 1–9999 whatever the offset.
const FIRST_INSTANT = localMsOf(1, 1, 2, 0);
const LAST_INSTANT = localMsOf(9999, 12, 31, 0);

// Building a DateTimeFormat costs far more than using one. The cap bounds the memory a caller
// could take by passing endless spellings of valid names ('utc', 'uTc', …).
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 1000;

function formatter(timeZone: string): Intl.DateTimeFormat {
  let cached = formatters.get(timeZone);
  if (cached === undefined) {
    cached = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(timeZone, cached);
  }
  return cached;
}

/** Local milliseconds of a calendar date (month 1–12; days past the month's end roll over). */
function localMsOf(year: number, month: number, day: number, timeOfDayMs: number): number {
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0–99 as 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime() + timeOfDayMs;
}

function daysInMonth(year: number, month: number): number {
  return new Date(localMsOf(year, month + 1, 0, 0)).getUTCDate();
}

/** What the zone's clocks show at an instant, in local milliseconds. */
function localMs(instantMs: number, timeZone: string): number {
  if (!(instantMs >= FIRST_INSTANT && instantMs <= LAST_INSTANT)) {
    throw new RangeError('instants must fall within the years 1 to 9999');
  }
  const wholeSecond = Math.floor(instantMs / SECOND_MS) * SECOND_MS;
  const fields: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(wholeSecond)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const { year = NaN, month = NaN, day = NaN, hour = NaN, minute = NaN, second = NaN } = fields;
  const timeOfDay = ((hour * 60 + minute) * 60 + second) * SECOND_MS;
  // Zone offsets change on whole seconds, so the milliseconds carry over unchanged.
  return localMsOf(year, month, day, timeOfDay) + (instantMs - wholeSecond);
}

function offsetAt(instantMs: number, timeZone: string): number {
  return localMs(instantMs, timeZone) - instantMs;
}

/**
 * The first instant at which the zone's clocks show `local` or later: the instant itself when
 * the reading exists once, the earlier of the two when clocks fall back over it, and the end of
 * the gap (the instant the clocks jump) when they spring forward over it.
 */
function instantOf(local: number, timeZone: string): number {
  // The offsets in force a day either side are the only ones a reading near `local` can have,
  // as long as the zone does not change its offset twice within those two days (the tz data of
  // our times never does; the tests sweep eight zones' changes).
  const before = offsetAt(local - DAY_MS, timeZone);
  const after = offsetAt(local + DAY_MS, timeZone);
  const earlier = local - Math.max(before, after);
  if (localMs(earlier, timeZone) === local) return earlier;
  const later = local - Math.min(before, after);
  if (localMs(later, timeZone) === local) return later;
  // A gap: the clocks show less than `local` at `earlier` and more at `later`, and run forward
  // in between with one jump; find the first millisecond at or past the jump.
  let below = earlier;
  let atOrAbove = later;
  while (atOrAbove - below > 1) {
    const middle = below + Math.floor((atOrAbove - below) / 2);
    if (localMs(middle, timeZone) >= local) atOrAbove = middle;
    else below = middle;
  }
  return atOrAbove;
}

interface Calendar {
  anchorMs: number;
  timeZone: string;
  every: Recurrence;
  year: number;
  month: number;
  day: number;
  timeOfDayMs: number;
}

function calendarOf(anchor: Date, timeZone: string, every: Recurrence): Calendar {
  const { interval, intervalCount } = every;
  if (!['day', 'week', 'month', 'year'].includes(interval)) {
    throw new RangeError(`unknown interval ${String(interval)}`);
  }
  if (!Number.isSafeInteger(intervalCount) || intervalCount < 1) {
    throw new RangeError('intervalCount must be a positive integer');
  }
  const anchorMs = anchor.getTime();
  const local = localMs(anchorMs, timeZone);
  const date = new Date(local);
  return {
    anchorMs,
    timeZone,
    every,
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    timeOfDayMs: ((local % DAY_MS) + DAY_MS) % DAY_MS,
  };
}

/** The local reading the n-th boundary aims at, counted from the anchor's date (never from
 * the previous boundary, so a day clamped in a short month comes back in a long one). */
function localTarget(calendar: Calendar, n: number): number {
  const { year, month, day, timeOfDayMs, every } = calendar;
  const steps = n * every.intervalCount;
  if (every.interval === 'day') return localMsOf(year, month, day + steps, timeOfDayMs);
  if (every.interval === 'week') return localMsOf(year, month, day + 7 * steps, timeOfDayMs);
  const monthIndex = year * 12 + (month - 1) + (every.interval === 'year' ? 12 * steps : steps);
  const targetYear = Math.floor(monthIndex / 12);
  const targetMonth = monthIndex - targetYear * 12 + 1;
  const targetDay = Math.min(day, daysInMonth(targetYear, targetMonth));
  return localMsOf(targetYear, targetMonth, targetDay, timeOfDayMs);
}

function boundaryMs(calendar: Calendar, n: number): number {
  if (!Number.isSafeInteger(n)) throw new RangeError('n must be an integer');
  // The anchor is its own boundary even when it is the second of two equal readings.
  if (n === 0) return calendar.anchorMs;
  return instantOf(localTarget(calendar, n), calendar.timeZone);
}

const NOMINAL_DAYS: Record<IntervalUnit, number> = {
  day: 1,
  week: 7,
  month: 365.2425 / 12,
  year: 365.2425,
};

/**
 * The n-th boundary from the anchor (n = 0 is the anchor itself, negative n before it),
 * computed from the anchor directly — never by stepping from the previous boundary, so the
 * anchor's day is restored after a short month — on the zone's local calendar, at the anchor's
 * local time of day (milliseconds included). A local time that does not exist (spring forward)
 * gives the first instant after the gap; one that exists twice (fall back) the first of the two.
 */
export function boundary(anchor: Date, timeZone: string, every: Recurrence, n: number): Date {
  return new Date(boundaryMs(calendarOf(anchor, timeZone, every), n));
}

/** The period containing t: boundary(k) ≤ t < boundary(k+1), with its index k (negative before the anchor). */
export function periodAt(
  anchor: Date,
  timeZone: string,
  every: Recurrence,
  t: Date,
): Period & { index: number } {
  const calendar = calendarOf(anchor, timeZone, every);
  const at = t.getTime();
  if (Number.isNaN(at)) throw new RangeError('t is not a valid instant');
  const nominalMs = NOMINAL_DAYS[every.interval] * every.intervalCount * DAY_MS;
  // The nominal length puts k within a step or two of the answer; the loops settle it. They
  // also pass over the empty period of a local day the zone skipped (Pacific/Apia, 2011-12-30).
  let index = Math.floor((at - calendar.anchorMs) / nominalMs);
  let start = boundaryMs(calendar, index);
  while (start > at) {
    index -= 1;
    start = boundaryMs(calendar, index);
  }
  let end = boundaryMs(calendar, index + 1);
  while (end <= at) {
    index += 1;
    start = end;
    end = boundaryMs(calendar, index + 1);
  }
  return { start: new Date(start), end: new Date(end), index };
}

/** The first boundary strictly after t. */
export function nextBoundaryAfter(
  anchor: Date,
  timeZone: string,
  every: Recurrence,
  t: Date,
): Date {
  return periodAt(anchor, timeZone, every, t).end;
}

/**
 * True for an IANA zone name Intl knows (e.g. 'Europe/Berlin', 'UTC'; matched without regard to
 * case, as IANA names are). Offsets such as '+01:00' are not zone names: they have no DST rules.
 */
export function isTimeZone(name: string): boolean {
  if (typeof name !== 'string' || !/^[A-Za-z]/.test(name)) return false;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * The local calendar date (YYYY-MM-DD) of an instant in a zone (for documents: a period [s,e)
 * prints as localDate(s) … localDate(e − 1 s)).
 */
export function localDate(instant: Date, timeZone: string): string {
  return new Date(localMs(instant.getTime(), timeZone)).toISOString().slice(0, 10);
}
