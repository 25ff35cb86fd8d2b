// Buckets of time, pure: the hour and day buckets of a summary on a time zone's local
// calendar, and how a bucket splits into whole UTC hours (read from the rollups) and the
// partial hours at its ends (read from the events).
import { ParameterInvalidError } from '../errors.ts';
import { boundary, localDate, type Period } from '../subscriptions/calendar.ts';
import type { Span } from './aggregation-store.ts';
import type { Granularity } from './schemas.ts';

const HOUR_MS = 3_600_000;
const DAY = { interval: 'day', intervalCount: 1 } as const;
/** Buckets a summary may have: 1,000 hours is about six weeks. */
export const MAX_BUCKETS = 1000;

/** The rollups' hours and the events' partial hours that make up each bucket. */
export function splitByHour(buckets: readonly Period[]): { hours: Span[]; spans: Span[] } {
  const hours: Span[] = [];
  const spans: Span[] = [];
  buckets.forEach(({ start, end }, bucket) => {
    const first = Math.ceil(start.getTime() / HOUR_MS) * HOUR_MS;
    const last = Math.floor(end.getTime() / HOUR_MS) * HOUR_MS;
    if (first >= last) {
      spans.push({ bucket, from: start, to: end });
      return;
    }
    hours.push({ bucket, from: new Date(first), to: new Date(last) });
    if (start.getTime() < first) spans.push({ bucket, from: start, to: new Date(first) });
    if (last < end.getTime()) spans.push({ bucket, from: new Date(last), to: end });
  });
  return { hours, spans };
}

// The zone's offset from UTC, for hour buckets in zones a fraction of an hour off UTC
// (Asia/Kolkata, +05:30): their local hours start on the half hour.
const offsetFormats = new Map<string, Intl.DateTimeFormat>();

function offsetMs(instant: number, timeZone: string): number {
  let format = offsetFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormats.set(timeZone, format);
  }
  const name = format.formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const match = /^GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return (match[1] === '-' ? -minutes : minutes) * 60_000;
}

/** The local hour an instant reads (hours since the epoch, on the zone's clock). */
export function localHour(instant: number, timeZone: string): number {
  return Math.floor((instant + offsetMs(instant, timeZone)) / HOUR_MS);
}

/**
 * Whether a local hour starts at `instant`: the clock shows another hour than a moment before,
 * or it was set back a whole hour (Berlin's second 02:00 is an hour of its own). Set back half
 * an hour (Lord Howe, 02:00 → 01:30), the hour it shows goes on: that hour lasts 90 minutes.
 */
export function startsLocalHour(instant: number, timeZone: string): boolean {
  if (localHour(instant, timeZone) !== localHour(instant - 1, timeZone)) return true;
  const back = offsetMs(instant - 1, timeZone) - offsetMs(instant, timeZone);
  return back > 0 && back % HOUR_MS === 0;
}

const QUARTER_MS = 15 * 60_000;

/**
 * The first instant after `t` at which a local hour starts. Zones' offsets and their changes
 * fall on quarter hours of UTC, so quarter hours are the candidates.
 */
function nextLocalHour(t: number, timeZone: string): number {
  let at = Math.floor(t / QUARTER_MS) * QUARTER_MS + QUARTER_MS;
  while (!startsLocalHour(at, timeZone)) at += QUARTER_MS;
  return at;
}

/** The same local time a calendar day later (the next midnight, after a midnight). */
function dayAfter(t: number, timeZone: string): number {
  return boundary(new Date(t), timeZone, DAY, 1).getTime();
}

/**
 * The first local midnight after `t`, a local midnight itself or not: the first instant whose
 * local date is not t's. `hint` (a day's boundary after the previous midnight) is it unless
 * that midnight fell in a gap; else it is found by bisection, to the second (zones change
 * their offsets on whole seconds).
 */
function nextLocalMidnight(t: number, timeZone: string, hint: number | null): number {
  const today = localDate(new Date(t), timeZone);
  const isToday = (seconds: number) => localDate(new Date(seconds * 1000), timeZone) === today;
  if (hint !== null && hint % 1000 === 0 && isToday(hint / 1000 - 1) && !isToday(hint / 1000)) {
    return hint;
  }
  let before = Math.floor(t / 1000);
  let after = before + 2 * 24 * 3600;
  while (after - before > 1) {
    const middle = before + Math.floor((after - before) / 2);
    if (isToday(middle)) before = middle;
    else after = middle;
  }
  return after * 1000;
}

/**
 * The buckets of [from, to): one (none), or cut at every local hour or midnight of the zone
 * in between, so the first and last may be partial. More than MAX_BUCKETS is refused.
 */
export function summaryBuckets(
  from: Date,
  to: Date,
  granularity: Granularity,
  timeZone: string,
): Period[] {
  if (granularity === 'none') return [{ start: from, end: to }];
  const edges = [from.getTime()];
  for (;;) {
    const at = edges.at(-1)!;
    const next =
      granularity === 'hour'
        ? nextLocalHour(at, timeZone)
        : nextLocalMidnight(at, timeZone, edges.length > 1 ? dayAfter(at, timeZone) : null);
    if (next >= to.getTime()) break;
    if (edges.length >= MAX_BUCKETS) {
      throw new ParameterInvalidError(
        'granularity',
        `A summary has at most ${MAX_BUCKETS} buckets: ask for a shorter range or a coarser granularity.`,
      );
    }
    edges.push(next);
  }
  edges.push(to.getTime());
  return edges.slice(1).map((end, i) => ({ start: new Date(edges[i]!), end: new Date(end) }));
}
