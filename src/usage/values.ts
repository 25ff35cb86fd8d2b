// What a meter reads of an event's property, by the rule the database measures with
// (usage_decimal and usage_unique_value, migration 0043): an event refused here would count as
// nothing there, so a request is held to the same rule before it is kept.
import type { Aggregation } from './schemas.ts';

const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]{1,12})?$/;
// JSON parsers (JavaScript's among them) read numbers as doubles: exact below 2^53 only.
const EXACT_BELOW = 2 ** 53;
const MAX_UNIQUE_TEXT = 200;

/**
 * A number's JSON text as the database reads it back: JavaScript writes 5e-7 and 1e+21 where
 * PostgreSQL's numeric has 0.0000005 and 1000000000000000000000.
 */
function plainText(value: number): string {
  const text = String(value);
  const exponent = /^(-?)(\d)(?:\.(\d+))?e([+-])(\d+)$/.exec(text);
  if (!exponent) return text;
  const [, sign, digit, rest = '', direction, power] = exponent;
  const shift = Number(power);
  return direction === '-'
    ? `${sign}0.${'0'.repeat(shift - 1)}${digit}${rest}`
    : `${sign}${digit}${rest}${'0'.repeat(shift - rest.length)}`;
}

/** Whether a property's value is a usage decimal: ≥ 0, up to 12 decimal places. */
export function isUsageDecimal(value: unknown): boolean {
  if (typeof value === 'string') return DECIMAL.test(value);
  if (typeof value !== 'number') return false;
  return value >= 0 && value < EXACT_BELOW && DECIMAL.test(plainText(value));
}

/** Whether a property's value can be counted distinctly: a JSON scalar of ≤ 200 characters. */
export function isUniqueValue(value: unknown): boolean {
  if (typeof value === 'number') return plainText(value).length <= MAX_UNIQUE_TEXT;
  const scalar = typeof value === 'string' || typeof value === 'boolean';
  return scalar && JSON.stringify(value).length <= MAX_UNIQUE_TEXT;
}

/** What a meter needs of its property, said to the client whose event lacks it. */
export function valueRule(aggregation: Aggregation): string {
  return aggregation === 'unique_count'
    ? `a JSON string, number or boolean of at most ${MAX_UNIQUE_TEXT} characters`
    : 'a decimal ≥ 0 with up to 12 decimal places, as a JSON number or string';
}

/** Whether `value` is what a meter of `aggregation` reads (count reads nothing). */
export function isMeterValue(aggregation: Aggregation, value: unknown): boolean {
  if (aggregation === 'count') return true;
  return aggregation === 'unique_count' ? isUniqueValue(value) : isUsageDecimal(value);
}
