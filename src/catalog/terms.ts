// A price's terms as a client asks for them, checked and completed with their defaults: the
// rules that a schema cannot state (which fields go with which scheme, the order of tiers, the
// length of a period). Pure: it refuses before anything is read or written.
import { ParameterInvalidError, ParameterMissingError } from '../errors.ts';
import { MAX_AMOUNT } from '../money/amount.ts';
import { isCurrency } from '../money/currency.ts';
import { formatDecimal, parseDecimal } from './amount.ts';
import type { Price, PriceCreate, PriceTerms, PriceTier } from './schemas.ts';

/**
 * The most intervals of each kind in one period: a period is at most a year (as Stripe's), so
 * a yearly invoice is the longest a subscription waits, and proration stays within one year.
 */
export const MAX_INTERVAL_COUNT = { day: 365, week: 52, month: 12, year: 1 } as const;

/** The terms of a new price: everything about it that never changes. */
export type CheckedPrice = Pick<Price, 'currency' | 'type' | 'recurring'> & PriceTerms;

type Recurring = NonNullable<Price['recurring']>;

function checkedRecurring(input: PriceCreate): Recurring | null {
  const given = input.recurring;
  if (input.type === 'one_time') {
    if (given !== undefined) {
      throw new ParameterInvalidError('recurring', 'A one_time price has no recurring terms.');
    }
    return null;
  }
  if (given === undefined) {
    throw new ParameterMissingError(
      'recurring',
      'A recurring price needs recurring: { interval, intervalCount?, usage? }.',
    );
  }
  const intervalCount = given.intervalCount ?? 1;
  const most = MAX_INTERVAL_COUNT[given.interval];
  if (intervalCount > most) {
    throw new ParameterInvalidError(
      'recurring.intervalCount',
      `A period is at most one year: intervalCount may be at most ${most} for interval ${given.interval}.`,
    );
  }
  // A metered price bills its meter's aggregation, in arrears (the service checks the meter).
  if (given.usage === 'metered') {
    if (given.meterId === undefined) {
      throw new ParameterMissingError('recurring.meterId', 'A metered price needs its meterId.');
    }
    return { interval: given.interval, intervalCount, usage: 'metered', meterId: given.meterId };
  }
  if (given.meterId !== undefined) {
    throw new ParameterInvalidError('recurring.meterId', 'Only metered prices have a meter.');
  }
  return { interval: given.interval, intervalCount, usage: 'licensed', meterId: null };
}

/** A decimal amount in its shortest form ("0.0250" → "0.025"), at most the largest amount. */
function checkedDecimal(text: string | undefined, param: string): string | null {
  if (text === undefined) return null;
  const scaled = parseDecimal(text);
  if (scaled === null || scaled > parseDecimal(String(MAX_AMOUNT))!) {
    throw new ParameterInvalidError(
      param,
      `${param} must be a decimal string from 0 to ${MAX_AMOUNT} with up to 12 decimal places.`,
    );
  }
  return formatDecimal(scaled);
}

/** One of unitAmount and unitAmountDecimal, not both (`where`: "" or "tiers.3."). */
function oneUnitAmount(
  given: { unitAmount?: number | undefined; unitAmountDecimal?: string | undefined },
  where: string,
): Pick<PriceTier, 'unitAmount' | 'unitAmountDecimal'> {
  if (given.unitAmount !== undefined && given.unitAmountDecimal !== undefined) {
    throw new ParameterInvalidError(
      `${where}unitAmountDecimal`,
      'Give unitAmount or unitAmountDecimal, not both.',
    );
  }
  return {
    unitAmount: given.unitAmount ?? null,
    unitAmountDecimal: checkedDecimal(given.unitAmountDecimal, `${where}unitAmountDecimal`),
  };
}

function refuseField(input: PriceCreate, param: keyof PriceCreate, why: string): void {
  if (input[param] !== undefined) throw new ParameterInvalidError(param, why);
}

function checkedTiers(tiers: NonNullable<PriceCreate['tiers']>): PriceTier[] {
  let previous = 0;
  return tiers.map((tier, i) => {
    const where = `tiers.${i}.`;
    const last = i === tiers.length - 1;
    if (last && tier.upTo !== null) {
      throw new ParameterInvalidError(
        `${where}upTo`,
        'The last tier has upTo null: it takes every unit above the tier before it.',
      );
    }
    if (!last && tier.upTo === null) {
      throw new ParameterInvalidError(`${where}upTo`, 'Only the last tier has upTo null.');
    }
    if (tier.upTo !== null && tier.upTo <= previous) {
      throw new ParameterInvalidError(
        `${where}upTo`,
        `upTo must increase from tier to tier: ${tier.upTo} is not above ${previous}.`,
      );
    }
    previous = tier.upTo ?? previous;
    const amounts = oneUnitAmount(tier, where);
    if (
      amounts.unitAmount === null &&
      amounts.unitAmountDecimal === null &&
      tier.flatAmount === undefined
    ) {
      throw new ParameterMissingError(
        `${where}unitAmount`,
        'A tier needs unitAmount, unitAmountDecimal or flatAmount.',
      );
    }
    return { upTo: tier.upTo, ...amounts, flatAmount: tier.flatAmount ?? 0 };
  });
}

function checkedTerms(input: PriceCreate): PriceTerms {
  const billingScheme = input.billingScheme ?? 'per_unit';
  if (billingScheme === 'tiered') {
    const why = 'A tiered price has its amounts in its tiers.';
    refuseField(input, 'unitAmount', why);
    refuseField(input, 'unitAmountDecimal', why);
    refuseField(input, 'packageSize', 'Only package prices have a packageSize.');
    if (input.tiersMode === undefined) throw new ParameterMissingError('tiersMode');
    if (input.tiers === undefined) throw new ParameterMissingError('tiers');
    return {
      billingScheme,
      unitAmount: null,
      unitAmountDecimal: null,
      packageSize: null,
      tiersMode: input.tiersMode,
      tiers: checkedTiers(input.tiers),
    };
  }
  refuseField(input, 'tiersMode', 'Only tiered prices have tiersMode.');
  refuseField(input, 'tiers', 'Only tiered prices have tiers.');
  if (billingScheme === 'per_unit') {
    refuseField(input, 'packageSize', 'Only package prices have a packageSize.');
  } else if (input.packageSize === undefined) {
    throw new ParameterMissingError('packageSize', 'A package price needs packageSize.');
  }
  if (input.unitAmount === undefined && input.unitAmountDecimal === undefined) {
    throw new ParameterMissingError(
      'unitAmount',
      `A ${billingScheme} price needs unitAmount or unitAmountDecimal.`,
    );
  }
  return {
    billingScheme,
    ...oneUnitAmount(input, ''),
    packageSize: input.packageSize ?? null,
    tiersMode: null,
    tiers: null,
  };
}

/** The new price's fixed terms, or the refusal (400) of the first field at fault. */
export function checkedPrice(input: PriceCreate): CheckedPrice {
  if (!isCurrency(input.currency)) {
    throw new ParameterInvalidError('currency', `Unknown currency '${input.currency}'.`);
  }
  return {
    currency: input.currency,
    type: input.type,
    recurring: checkedRecurring(input),
    ...checkedTerms(input),
  };
}
