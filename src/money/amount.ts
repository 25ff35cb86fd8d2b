// Exact arithmetic on amounts in minor units. Amounts are JavaScript numbers that must be safe
// integers (they travel as JSON numbers, and the bigint columns hold far more); every product
// and sum is computed in BigInt first and only then checked, so nothing ever wraps or rounds.

/** The largest amount the API accepts or produces, in minor units: 2^53 − 1. */
export const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;
const MAX = BigInt(MAX_AMOUNT);

export function isSafeAmount(value: bigint): boolean {
  return value >= -MAX && value <= MAX;
}

/** quantity × unitAmount, exactly. */
export function lineAmount(quantity: number, unitAmount: number): bigint {
  return BigInt(quantity) * BigInt(unitAmount);
}

export function sum(values: Iterable<bigint | number>): bigint {
  let total = 0n;
  for (const value of values) total += BigInt(value);
  return total;
}

/**
 * numerator / denominator rounded to the nearest integer, halves away from zero (the rounding
 * of EN 16931 and of most tax authorities): 2.5 → 3, −2.5 → −3.
 */
export function divideRounded(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError('division by zero');
  if (denominator < 0n) return divideRounded(-numerator, -denominator);
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const quotient = (2n * magnitude + denominator) / (2n * denominator);
  return negative ? -quotient : quotient;
}
