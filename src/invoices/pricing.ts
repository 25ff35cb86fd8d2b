// Prices an invoice's lines: amounts, the tax breakdown (taxes/breakdown.ts) and the totals,
// with the limits the contract sets on money (never below 0, never beyond 2^53 − 1).
import type { Queryable } from '../db/pool.ts';
import { ParameterInvalidError } from '../errors.ts';
import { isSafeAmount, lineAmount, MAX_AMOUNT } from '../money/amount.ts';
import { computeTaxBreakdown, MixedTaxBehaviourError, type TaxExempt } from '../taxes/breakdown.ts';
import { percentageToNumber } from '../taxes/percentage.ts';
import { getTaxRatesForUse, type RateForInvoice, type TaxRateReads } from '../taxes/service.ts';
import type { TenantScope } from '../tenancy.ts';
import type { Totals } from './store.ts';

/** quantity × unitAmount, refused (400) when it leaves the safe range. */
export function checkedLineAmount(quantity: number, unitAmount: number, param: string): number {
  const amount = lineAmount(quantity, unitAmount);
  if (!isSafeAmount(amount)) {
    throw new ParameterInvalidError(
      param,
      `quantity × unitAmount exceeds the largest amount, ${MAX_AMOUNT} minor units.`,
    );
  }
  return Number(amount);
}

export interface TaxableLine {
  amount: number;
  tax_rates: readonly string[] | null;
}

/**
 * The totals of a draft. All the rates it names (defaults and lines' own) must be inclusive,
 * or all exclusive; `param` names the request field blamed when the lines' rates mix them.
 */
export function priceInvoice(
  lines: readonly TaxableLine[],
  defaultTaxRates: readonly string[],
  rates: ReadonlyMap<string, RateForInvoice>,
  taxExempt: TaxExempt,
  param: string,
): Totals {
  const mixed = (ids: readonly string[]) =>
    new Set(ids.map((id) => rates.get(id)!.inclusive)).size > 1;
  if (mixed(defaultTaxRates)) {
    throw new ParameterInvalidError('defaultTaxRates', new MixedTaxBehaviourError().message);
  }
  if (mixed([...defaultTaxRates, ...lines.flatMap((l) => l.tax_rates ?? [])])) {
    throw new ParameterInvalidError(param, new MixedTaxBehaviourError().message);
  }
  const breakdown = computeTaxBreakdown(
    lines.map((l) => ({ amount: BigInt(l.amount), taxRateIds: l.tax_rates ?? defaultTaxRates })),
    rates,
    taxExempt,
  );
  // A discount line may be negative, but no total may be: a negative balance is what credit
  // notes are for.
  if (breakdown.subtotal < 0n) {
    throw new ParameterInvalidError(
      'lines',
      'The lines of an invoice must not add up to less than 0.',
    );
  }
  for (const { rate, taxableAmount, amount } of breakdown.taxAmounts) {
    if (taxableAmount + (breakdown.inclusive ? amount : 0n) < 0n) {
      throw new ParameterInvalidError(
        'lines',
        `The lines taxed at ${rate.id} must not add up to less than 0.`,
      );
    }
  }
  if (![breakdown.subtotal, breakdown.tax, breakdown.total].every(isSafeAmount)) {
    throw new ParameterInvalidError(
      'lines',
      `The invoice total exceeds the largest amount, ${MAX_AMOUNT} minor units.`,
    );
  }
  return {
    tax_inclusive: breakdown.inclusive,
    subtotal: Number(breakdown.subtotal),
    tax: Number(breakdown.tax),
    total_excluding_tax: Number(breakdown.totalExcludingTax),
    total: Number(breakdown.total),
    tax_amounts: breakdown.taxAmounts.map((t) => {
      const rate = rates.get(t.rate.id)!;
      // A reverse-charge customer owes the tax itself: the supply is AE, never the domestic
      // standard rate (docs/api.md, "Tax rates").
      const category = taxExempt === 'reverse' && rate.category === 'S' ? 'AE' : rate.category;
      return {
        taxRateId: rate.id,
        displayName: rate.displayName,
        percentage: percentageToNumber(rate.percentage),
        inclusive: rate.inclusive,
        category,
        exemptionReason: rate.exemptionReason,
        taxableAmount: Number(t.taxableAmount),
        amount: Number(t.amount),
      };
    }),
  };
}

/**
 * The rates an invoice names, looked up in its tenant and environment (see priceWithRates);
 * `reads`: by the caller's shared reads of rates (./shared-reads.ts).
 */
export function ratesForInvoice(
  db: Queryable,
  scope: TenantScope,
  defaultTaxRates: readonly string[],
  lines: readonly TaxableLine[],
  change: { newlyUsed: ReadonlySet<string>; param: string },
  reads?: TaxRateReads,
): Promise<Map<string, RateForInvoice>> {
  return getTaxRatesForUse(
    db,
    scope,
    [
      { ids: defaultTaxRates, param: 'defaultTaxRates' },
      ...lines.map((l) => ({ ids: l.tax_rates ?? [], param: change.param })),
    ],
    change.newlyUsed,
    reads,
  );
}

/**
 * Prices an invoice with the rates it names, looked up in its tenant and environment. Rates
 * in `newlyUsed` must be active; `param` is blamed for a mix of inclusive and exclusive rates.
 */
export async function priceWithRates(
  db: Queryable,
  scope: TenantScope,
  defaultTaxRates: readonly string[],
  lines: readonly TaxableLine[],
  taxExempt: TaxExempt,
  change: { newlyUsed: ReadonlySet<string>; param: string },
): Promise<Totals> {
  const rates = await ratesForInvoice(db, scope, defaultTaxRates, lines, change);
  return priceInvoice(lines, defaultTaxRates, rates, taxExempt, change.param);
}
