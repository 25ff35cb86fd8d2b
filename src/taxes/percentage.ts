// Tax percentages as exact integers of 1/10000 percent (8.875 % → 88750). A percentage is read
// from its decimal text, never through float arithmetic, so tax is computed exactly.

/** Units per percent: the contract allows at most four decimal places. */
export const PERCENTAGE_SCALE = 10_000n;
/** p/100 as a fraction of an amount is units / PER_UNIT. */
export const UNITS_PER_WHOLE = 100n * PERCENTAGE_SCALE;

const DECIMAL = /^(0|[1-9][0-9]?)(?:\.([0-9]{1,4}))?$/;

/**
 * Reads a percentage (0 ≤ p < 100, at most four decimals) into units of 1/10000 percent, or
 * null when it is out of range or too precise. A JSON number is read from String(n), the
 * shortest decimal text that reads back as n: for every percentage the contract allows that
 * is exactly the text the client sent. PostgreSQL's numeric text ("8.8750") reads the same way.
 */
export function parsePercentage(value: number | string): bigint | null {
  const text = typeof value === 'number' ? String(value) : value;
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const whole = BigInt(match[1]!);
  const fraction = BigInt((match[2] ?? '').padEnd(4, '0'));
  return whole * PERCENTAGE_SCALE + fraction;
}

/** 88750 → "8.875"; 190000 → "19". */
export function formatPercentage(units: bigint): string {
  const whole = units / PERCENTAGE_SCALE;
  const fraction = (units % PERCENTAGE_SCALE).toString().padStart(4, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}

/** The JSON number for a percentage (the double nearest the decimal, which prints as it). */
export function percentageToNumber(units: bigint): number {
  return Number(formatPercentage(units));
}
