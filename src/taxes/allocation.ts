// Splitting a credit over an invoice's tax breakdown. A credit of a gross amount C is placed
// on the invoice in proportion to each rate's gross share: every part of what is still
// creditable — the amount excluding tax and each rate's tax — receives C/R of itself (R: the
// creditable total). The exact shares are rounded down and the units left over go to the
// parts with the largest remainders (the largest-remainder method), so the parts add up to C
// exactly, no part exceeds what remains of it, and credits that together reach the invoice's
// total credit each rate's tax exactly.
import { sum } from '../money/amount.ts';

export interface CreditablePart {
  taxRateId: string;
  taxableAmount: number;
  amount: number;
}

/** What of an invoice can still be credited (its breakdown less earlier, non-void credits). */
export interface Creditable {
  totalExcludingTax: number;
  taxAmounts: readonly CreditablePart[];
}

export interface CreditAllocation {
  total: number;
  totalExcludingTax: number;
  tax: number;
  taxAmounts: CreditablePart[];
}

/** Splits `amount` in proportion to `weights`, by largest remainder; the parts sum to amount. */
export function apportion(amount: bigint, weights: readonly bigint[]): bigint[] {
  const whole = sum(weights);
  if (amount < 0n || weights.some((w) => w < 0n) || (whole === 0n && amount > 0n)) {
    throw new RangeError('apportion needs amount ≥ 0 and weights ≥ 0 that are not all 0');
  }
  if (whole === 0n) return weights.map(() => 0n);
  const shares = weights.map((w, index) => ({
    index,
    weight: w,
    floor: (w * amount) / whole,
    remainder: (w * amount) % whole,
  }));
  let left = amount - sum(shares.map((s) => s.floor));
  const order = [...shares].sort((a, b) =>
    a.remainder !== b.remainder
      ? a.remainder > b.remainder
        ? -1
        : 1
      : a.weight !== b.weight
        ? a.weight > b.weight
          ? -1
          : 1
        : a.index - b.index,
  );
  const parts = shares.map((s) => s.floor);
  // The units left are the sum of the fractional parts, so fewer than the parts with a
  // remainder: each gets at most one. With amount ≤ Σ weights no part exceeds its weight.
  for (const share of order) {
    if (left === 0n) break;
    if (share.remainder === 0n) continue;
    parts[share.index]! += 1n;
    left -= 1n;
  }
  return parts;
}

/** The creditable total: the amount excluding tax plus every rate's tax. */
export function creditableTotal(creditable: Creditable): number {
  return Number(sum([creditable.totalExcludingTax, ...creditable.taxAmounts.map((t) => t.amount)]));
}

/**
 * Allocates a gross credit over what remains creditable. Throws a RangeError when the credit
 * is negative or larger than the creditable total (the caller refuses that first).
 */
export function allocateCredit(credit: number, creditable: Creditable): CreditAllocation {
  const C = BigInt(credit);
  const net = BigInt(creditable.totalExcludingTax);
  const taxes = creditable.taxAmounts.map((t) => BigInt(t.amount));
  const [netPart, ...taxParts] = apportion(C, [net, ...taxes]);
  const R = net + sum(taxes);

  // The taxable amounts credited: when the rates do not overlap (one rate or none per line),
  // the credited net amount is itself split over the rates' taxable amounts and the untaxed
  // rest, so those parts add up too; otherwise each is its proportional share.
  const taxables = creditable.taxAmounts.map((t) => BigInt(t.taxableAmount));
  const untaxed = net - sum(taxables);
  const taxableParts =
    untaxed >= 0n
      ? apportion(netPart!, [...taxables, untaxed]).slice(0, taxables.length)
      : taxables.map((t) => (R === 0n ? 0n : (t * C) / R));

  const taxAmounts = creditable.taxAmounts.map((t, i) => ({
    taxRateId: t.taxRateId,
    taxableAmount: Number(taxableParts[i]!),
    amount: Number(taxParts[i]!),
  }));
  const tax = Number(sum(taxParts));
  return { total: credit, totalExcludingTax: Number(netPart!), tax, taxAmounts };
}

/** The breakdown still creditable after the given (non-void) credits. */
export function remainingCreditable(
  invoice: Creditable,
  credits: readonly Pick<CreditAllocation, 'totalExcludingTax' | 'taxAmounts'>[],
): Creditable {
  const credited = (id: string, field: 'taxableAmount' | 'amount') =>
    Number(
      sum(
        credits.flatMap((c) => c.taxAmounts.filter((t) => t.taxRateId === id).map((t) => t[field])),
      ),
    );
  return {
    totalExcludingTax:
      invoice.totalExcludingTax - Number(sum(credits.map((c) => c.totalExcludingTax))),
    taxAmounts: invoice.taxAmounts.map((t) => ({
      taxRateId: t.taxRateId,
      taxableAmount: t.taxableAmount - credited(t.taxRateId, 'taxableAmount'),
      amount: t.amount - credited(t.taxRateId, 'amount'),
    })),
  };
}
