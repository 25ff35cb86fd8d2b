// The amount of a line under a price: exact, then rounded once, half away from zero (API.md
// part D, "The catalogue"). Unit prices and quantities are decimals with up to 12 places, held
// as BigInt counts of 10^-12; their products as counts of 10^-24. Nothing is rounded per unit,
// per package or per tier: a tier's part of a fortieth of a cent is kept exactly until the sum.
import { ParameterInvalidError } from '../errors.ts';
import { divideRounded, isSafeAmount, MAX_AMOUNT } from '../money/amount.ts';
import type { PriceTerms } from './schemas.ts';

/** Decimal places a unit amount or a quantity may have. */
export const DECIMAL_PLACES = 12;
const SCALE = 10n ** BigInt(DECIMAL_PLACES);
/** The scale of a product of two decimals (unit amount × quantity). */
const SCALE_SQUARED = SCALE * SCALE;

const DECIMAL_TEXT = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,12}))?$/;

/**
 * A non-negative decimal text (`"0.025"`, `"12"`), no sign, exponent or leading zeros, with up
 * to 12 decimal places, as a count of 10^-12; null for anything else.
 */
export function parseDecimal(text: string): bigint | null {
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return null;
  const fraction = (match[2] ?? '').padEnd(DECIMAL_PLACES, '0');
  return BigInt(match[1]!) * SCALE + BigInt(fraction);
}

/** A count of 10^-12 as its shortest decimal text: 25_000_000_000n → "0.025". */
export function formatDecimal(scaled: bigint): string {
  const sign = scaled < 0n ? '-' : '';
  const magnitude = scaled < 0n ? -scaled : scaled;
  const whole = (magnitude / SCALE).toString();
  const fraction = (magnitude % SCALE).toString().padStart(DECIMAL_PLACES, '0').replace(/0+$/, '');
  return fraction === '' ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}

/**
 * A quantity: a whole number (licensed items, invoice lines) or a decimal text with up to 12
 * places (metered usage, which aggregates decimal values).
 */
export type Quantity = number | string;

function scaledQuantity(quantity: Quantity): bigint {
  if (typeof quantity === 'number') {
    if (!Number.isSafeInteger(quantity) || quantity < 0) {
      throw new RangeError(`quantity ${quantity} is not a whole number from 0 to 2^53 − 1`);
    }
    return BigInt(quantity) * SCALE;
  }
  const scaled = parseDecimal(quantity);
  if (scaled === null) {
    throw new RangeError(`quantity '${quantity}' is not a decimal ≥ 0 with up to 12 places`);
  }
  return scaled;
}

/** A unit amount as a count of 10^-12 minor units: the integer one, else the decimal one. */
function scaledUnitAmount(amount: { unitAmount: number | null; unitAmountDecimal: string | null }) {
  if (amount.unitAmount !== null) return BigInt(amount.unitAmount) * SCALE;
  if (amount.unitAmountDecimal === null) return 0n;
  const scaled = parseDecimal(amount.unitAmountDecimal);
  if (scaled === null) throw new RangeError(`unit amount '${amount.unitAmountDecimal}' unreadable`);
  return scaled;
}

/** The exact amount in counts of 10^-24 minor units (quantity scaled by 10^-12). */
function exactAmount(terms: PriceTerms, quantity: bigint): bigint {
  switch (terms.billingScheme) {
    case 'per_unit':
      return quantity * scaledUnitAmount(terms);
    case 'package': {
      // Partial packages are rounded up: 11 units in packages of 10 are two packages.
      const size = BigInt(terms.packageSize!) * SCALE;
      const packages = (quantity + size - 1n) / size;
      return packages * scaledUnitAmount(terms) * SCALE;
    }
    case 'tiered':
      return terms.tiersMode === 'volume' ? volume(terms, quantity) : graduated(terms, quantity);
  }
}

/** The upper bound of a tier in counts of 10^-12 units; null: no bound (the last tier). */
const bound = (upTo: number | null) => (upTo === null ? null : BigInt(upTo) * SCALE);

/**
 * Each unit at the price of the tier it falls in, plus the flat amount of every tier the
 * quantity reaches. The first tier is always reached (a quantity of 0 falls in it), so its
 * flat amount is a base fee; a later one is reached once the quantity exceeds the tier before.
 */
function graduated(terms: PriceTerms, quantity: bigint): bigint {
  let total = 0n;
  let below = 0n;
  for (const tier of terms.tiers!) {
    const upTo = bound(tier.upTo);
    const top = upTo === null || quantity < upTo ? quantity : upTo;
    total += (top - below) * scaledUnitAmount(tier) + BigInt(tier.flatAmount) * SCALE_SQUARED;
    if (upTo === null || quantity <= upTo) break;
    below = upTo;
  }
  return total;
}

/** Every unit at the price of the tier the whole quantity falls in, plus that tier's flat amount. */
function volume(terms: PriceTerms, quantity: bigint): bigint {
  const tiers = terms.tiers!;
  const tier = tiers.find((t) => t.upTo === null || quantity <= bound(t.upTo)!) ?? tiers.at(-1)!;
  return quantity * scaledUnitAmount(tier) + BigInt(tier.flatAmount) * SCALE_SQUARED;
}

/**
 * The amount of `quantity` under the price's terms, in whole minor units: computed exactly and
 * rounded once, half away from zero. Refused (400 parameter_invalid, naming `param`) when it
 * exceeds the largest amount, 2^53 − 1. A quantity below 0 or with more than 12 decimal places
 * is a RangeError: callers pass quantities the API already checked.
 */
export function lineAmount(terms: PriceTerms, quantity: Quantity, param = 'quantity'): number {
  const amount = divideRounded(exactAmount(terms, scaledQuantity(quantity)), SCALE_SQUARED);
  if (!isSafeAmount(amount)) {
    throw new ParameterInvalidError(
      param,
      `The amount of ${quantity} units at this price exceeds the largest amount, ${MAX_AMOUNT} minor units.`,
    );
  }
  return Number(amount);
}

/**
 * The price of one unit as decimal text of minor units, for display (`"0.025"`), where the
 * price has a single one (per unit); null for package and tiered prices, whose lines show
 * their quantity and amount.
 */
export function unitAmountText(terms: PriceTerms): string | null {
  if (terms.billingScheme !== 'per_unit') return null;
  return formatDecimal(scaledUnitAmount(terms));
}
