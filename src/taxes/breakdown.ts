// The tax breakdown of an invoice or credit note (the EN 16931 "VAT breakdown"): tax is
// computed per rate over the sum of the line amounts the rate applies to, and rounded once,
// half away from zero. Rounding per line instead would let a 19 % invoice of three lines of
// 33.33 charge 18.99 rather than the 19.00 the authority expects on 99.99. Everything is exact
// integer (BigInt) arithmetic, with percentages in units of 1/10000 percent.
//
// Taxable amounts add up: lines with the same rates form a group, and each rate's taxable
// amount is the sum of the nets of its groups (for inclusive rates, gross less the tax of the
// group's rates, each rate's rounded tax split over its groups). So where every line carries
// the same rates, each rate's taxable amount is the document's totalExcludingTax, and
// totalExcludingTax + tax = total always.
import { divideRounded, sum } from '../money/amount.ts';
import { UNITS_PER_WHOLE } from './percentage.ts';

export type TaxExempt = 'none' | 'exempt' | 'reverse';

export interface RateForBreakdown {
  id: string;
  displayName: string;
  /** Units of 1/10000 percent (see percentage.ts). */
  percentage: bigint;
  inclusive: boolean;
}

export interface TaxableLine {
  amount: bigint;
  /** The rates that apply to this line (the invoice's defaults or the line's own). */
  taxRateIds: readonly string[];
}

export interface RateTax {
  rate: RateForBreakdown;
  /**
   * The amount the tax is levied on, excluding tax: the sum of the rate's lines, for inclusive
   * rates less the tax included in them (see includedTaxByGroup).
   */
  taxableAmount: bigint;
  amount: bigint;
}

export interface TaxBreakdown {
  subtotal: bigint;
  tax: bigint;
  totalExcludingTax: bigint;
  total: bigint;
  /** True when the line amounts include the tax (all rates inclusive). */
  inclusive: boolean;
  taxAmounts: RateTax[];
}

/** Inclusive and exclusive rates on one document: what "total" means would be ambiguous. */
export class MixedTaxBehaviourError extends Error {
  constructor() {
    super('All tax rates on one invoice must be inclusive, or all exclusive.');
  }
}

/** An exact fraction n/d (d > 0). */
type Fraction = [bigint, bigint];

function gcd(a: bigint, b: bigint): bigint {
  let [x, y] = [a < 0n ? -a : a, b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

function sumFractions(parts: readonly Fraction[]): Fraction {
  let [n, d]: Fraction = [0n, 1n];
  for (const [pn, pd] of parts) {
    const next: Fraction = [n * pd + pn * d, d * pd];
    const common = gcd(next[0], next[1]);
    [n, d] = [next[0] / common, next[1] / common];
  }
  return [n, d];
}

interface RateGroup {
  rates: RateForBreakdown[];
  gross: bigint;
  /** Σ of the group's percentages, for taking inclusive tax out of the gross together. */
  percentage: bigint;
}

/**
 * The exact tax of `rate` over the groups of lines it applies to. Exclusive: gross × p/100.
 * Inclusive: the part of the gross that is this rate's tax, gross × p/(100 + P), where P is
 * the sum of the inclusive rates on those lines (P = p for a line with one rate, which is the
 * contract's sum − sum/(1 + p/100)).
 */
function exactTax(rate: RateForBreakdown, groups: readonly RateGroup[]): Fraction {
  return sumFractions(
    groups.map((g): Fraction => [
      g.gross * rate.percentage,
      rate.inclusive ? UNITS_PER_WHOLE + g.percentage : UNITS_PER_WHOLE,
    ]),
  );
}

/** ⌊n/d⌋ for d > 0, rounding towards −∞ (BigInt division truncates towards 0). */
function floorDivide(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}

/**
 * Splits an integer `total` over exact shares n/d that add up to within a unit of it (total is
 * their sum rounded): each part is its share rounded down, and the units left go to the
 * shares with the largest remainders. Shares may be negative (a group of discount lines).
 */
function splitByShares(total: bigint, shares: readonly Fraction[]): bigint[] {
  const parts = shares.map(([n, d]) => floorDivide(n, d));
  const remainders = shares.map(([n, d], i): Fraction => [n - parts[i]! * d, d]);
  let left = total - sum(parts);
  const order = shares
    .map((_, i) => i)
    .sort((a, b) => {
      const [an, ad] = remainders[a]!;
      const [bn, bd] = remainders[b]!;
      const difference = bn * ad - an * bd;
      return difference > 0n ? 1 : difference < 0n ? -1 : a - b;
    });
  for (const i of order) {
    if (left === 0n) break;
    if (remainders[i]![0] === 0n) continue;
    parts[i]! += 1n;
    left -= 1n;
  }
  if (left !== 0n) throw new RangeError('the total is not the rounded sum of its shares');
  return parts;
}

/**
 * The tax included in each group's gross amount: each inclusive rate's tax, rounded once over
 * all its groups, is split back over them in proportion to the exact tax of each. A group's
 * net (gross − its included tax) is then what each of its rates taxes, and the nets of all
 * groups add up to subtotal − tax exactly. Taking the rates of a group out together and
 * rounding that once instead would leave the rates' taxable amounts a unit or so off the
 * invoice's own totalExcludingTax.
 */
function includedTaxByGroup(
  rates: readonly RateForBreakdown[],
  groups: readonly RateGroup[],
  amounts: ReadonlyMap<RateForBreakdown, bigint>,
): Map<RateGroup, bigint> {
  const included = new Map(groups.map((g) => [g, 0n]));
  for (const rate of rates) {
    const own = groups.filter((g) => g.rates.includes(rate));
    const shares = own.map((g) => exactTax(rate, [g]));
    splitByShares(amounts.get(rate)!, shares).forEach((part, i) => {
      included.set(own[i]!, included.get(own[i]!)! + part);
    });
  }
  return included;
}

/**
 * Prices a document. Customers that are `exempt` or under `reverse` charge pay no tax: every
 * rate stays in the breakdown with amount 0 (inclusive prices are then wholly net, so the
 * document declares no tax either; the customer pays the same total).
 */
export function computeTaxBreakdown(
  lines: readonly TaxableLine[],
  rates: ReadonlyMap<string, RateForBreakdown>,
  taxExempt: TaxExempt,
): TaxBreakdown {
  // Lines with the same set of rates form a group.
  const groups = new Map<string, RateGroup>();
  for (const line of lines) {
    const ids = [...new Set(line.taxRateIds)];
    if (ids.length === 0) continue;
    const key = [...ids].sort().join('\n');
    const group = groups.get(key);
    if (group) {
      group.gross += line.amount;
      continue;
    }
    const groupRates = ids.map((id) => {
      const rate = rates.get(id);
      if (!rate) throw new RangeError(`tax rate ${id} is not among the rates given`);
      return rate;
    });
    groups.set(key, {
      rates: groupRates,
      gross: line.amount,
      percentage: sum(groupRates.map((r) => r.percentage)),
    });
  }
  // Each rate once, in the order the lines first name it.
  const used = [...new Set([...groups.values()].flatMap((g) => g.rates))];
  const inclusive = used.length > 0 && used[0]!.inclusive;
  if (used.some((rate) => rate.inclusive !== inclusive)) throw new MixedTaxBehaviourError();

  const charged = taxExempt === 'none';
  const all = [...groups.values()];
  const amounts = new Map(
    used.map((rate) => {
      const own = all.filter((g) => g.rates.includes(rate));
      return [rate, charged ? divideRounded(...exactTax(rate, own)) : 0n] as const;
    }),
  );
  const included =
    inclusive && charged ? includedTaxByGroup(used, all, amounts) : new Map<RateGroup, bigint>();
  const taxAmounts = used.map((rate): RateTax => {
    const own = all.filter((g) => g.rates.includes(rate));
    const taxableAmount = sum(own.map((g) => g.gross - (included.get(g) ?? 0n)));
    return { rate, taxableAmount, amount: amounts.get(rate)! };
  });
  const subtotal = sum(lines.map((l) => l.amount));
  const tax = sum(taxAmounts.map((t) => t.amount));
  return inclusive
    ? { subtotal, tax, totalExcludingTax: subtotal - tax, total: subtotal, inclusive, taxAmounts }
    : { subtotal, tax, totalExcludingTax: subtotal, total: subtotal + tax, inclusive, taxAmounts };
}
