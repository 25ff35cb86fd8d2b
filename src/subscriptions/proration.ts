// Proration by whole seconds of real time (docs/subscriptions.md, "Proration"): a DST day counts
// 23 or 25 hours, as it lasts. Exact: fractions stay pairs of bigints and an amount is rounded
// once, half away from zero, by the same division the rest of the money code uses.
import { divideRounded } from '../money/amount.ts';
import type { Period } from './calendar.ts';

function wholeSeconds(instant: Date, name: string): bigint {
  const ms = instant.getTime();
  if (Number.isNaN(ms)) throw new RangeError(`${name} is not a valid instant`);
  return BigInt(Math.floor(ms / 1000));
}

/**
 * The period's ends and the span [from, to) inside it, in whole seconds. A span reaching outside
 * the period is refused rather than clamped: it would credit or charge time the period's
 * invoice never billed, so it is the caller's mistake (a proration date the API must refuse).
 */
function secondsWithin(period: Period, from: Date, to: Date) {
  const start = wholeSeconds(period.start, 'period.start');
  const end = wholeSeconds(period.end, 'period.end');
  const first = wholeSeconds(from, 'from');
  const last = wholeSeconds(to, 'to');
  if (end <= start) throw new RangeError('the period must last at least one second');
  if (!(start <= first && first <= last && last <= end)) {
    throw new RangeError('the prorated span must lie within the period, in order');
  }
  return { length: end - start, span: last - first };
}

/**
 * The fraction f = (e − t)/(e − s) of a period left at t, in whole seconds (instants truncated to
 * whole seconds), as an exact pair of bigints: the seconds left and the seconds of the period,
 * not reduced. t must lie within [s, e] (at e nothing is left).
 */
export function remainingFraction(
  period: Period,
  at: Date,
): { numerator: bigint; denominator: bigint } {
  const { length, span } = secondsWithin(period, at, period.end);
  return { numerator: span, denominator: length };
}

/**
 * round(amount × (to − from)/(e − s)), half away from zero, exact (BigInt), rounded once; amount
 * integer minor units, may be negative. `to` defaults to period.end. Requires
 * s ≤ from ≤ to ≤ e in whole seconds.
 */
export function prorate(amount: number, period: Period, from: Date, to: Date = period.end): number {
  if (!Number.isSafeInteger(amount)) throw new RangeError('amount must be an integer');
  const { length, span } = secondsWithin(period, from, to);
  // |result| ≤ |amount|, so it is a safe integer again.
  return Number(divideRounded(BigInt(amount) * span, length));
}
