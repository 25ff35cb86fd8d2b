// Crediting one invoice line with its own tax rates. The gross credit C of a line is split
// into its amount excluding tax and each of its rates' tax in the line's own proportions,
// 100 : p1 : p2 … (the same for inclusive and exclusive prices: an exclusive line of A is
// A + A·p/100, an inclusive one A·100/(100+P) + A·p/(100+P)), by largest remainder, so the
// parts add up to C exactly.
//
// Each part is capped at what remains of it on the invoice (allocation.ts, Creditable): the
// invoice rounds each rate's tax once over all its lines, so a line's own share can differ
// from what is left by a unit. A unit that does not fit moves to the line's other parts (net
// first); a credit the line's parts cannot take at all is refused by the caller
// (lineCreditable), never spread over rates the line does not carry.
import { divideRounded, sum } from '../money/amount.ts';
import { apportion, type CreditAllocation, type Creditable } from './allocation.ts';
import { parsePercentage, UNITS_PER_WHOLE } from './percentage.ts';

export interface LineForCredit {
  /** The invoice line's amount: excluding tax on exclusive invoices, including it otherwise. */
  amount: number;
  /** The line's rates with their frozen percentages (the invoice's taxAmounts). */
  rates: readonly { taxRateId: string; percentage: number }[];
  inclusive: boolean;
  /** False when the customer was exempt or reverse-charged: the line carried no tax. */
  charged: boolean;
}

function units(percentage: number): bigint {
  const value = parsePercentage(percentage);
  if (value === null) throw new RangeError(`percentage ${percentage} is unreadable`);
  return value;
}

/** The weight of the net amount, then of each rate's tax (0 when no tax was charged). */
function weights(line: LineForCredit): bigint[] {
  return [UNITS_PER_WHOLE, ...line.rates.map((r) => (line.charged ? units(r.percentage) : 0n))];
}

/**
 * What the customer was charged for the line alone, tax included: the cap of all credits
 * against it. Exclusive: amount + each rate's tax on it, rounded half away from zero (the
 * invoice rounds over the sum of its lines, so the lines' caps may differ from its total by a
 * unit or so; the invoice's own cap is its total). Inclusive: the amount.
 */
export function lineGross(line: LineForCredit): number {
  if (line.inclusive || !line.charged) return line.amount;
  const amount = BigInt(line.amount);
  const taxes = line.rates.map((r) => divideRounded(amount * units(r.percentage), UNITS_PER_WHOLE));
  return Number(amount + sum(taxes));
}

/** Index of each of the line's rates in the creditable breakdown. */
function rateIndexes(line: LineForCredit, creditable: Creditable): number[] {
  return line.rates.map((r) => {
    const index = creditable.taxAmounts.findIndex((t) => t.taxRateId === r.taxRateId);
    if (index < 0) throw new RangeError(`rate ${r.taxRateId} is not in the invoice's breakdown`);
    return index;
  });
}

/** What remains of each of the line's parts (net, then its rates' tax) on the invoice. */
function rooms(line: LineForCredit, creditable: Creditable): bigint[] {
  const taxes = rateIndexes(line, creditable).map((i) => BigInt(creditable.taxAmounts[i]!.amount));
  return [BigInt(creditable.totalExcludingTax), ...taxes];
}

/**
 * The most a line can still be credited with its own rates: what remains on the invoice of
 * its net and of the tax of the rates it carries (those with a weight). Callers cap this by
 * lineGross less earlier credits of the line.
 */
export function lineCreditable(line: LineForCredit, creditable: Creditable): number {
  const w = weights(line);
  return Number(sum(rooms(line, creditable).filter((_, i) => w[i]! > 0n)));
}

/**
 * Allocates a gross credit of one line over its own rates (see above). The result lists every
 * rate of the breakdown (0 for rates the line does not carry), like allocateCredit. Throws a
 * RangeError when the credit is negative or more than lineCreditable (the caller refuses that
 * first).
 */
export function allocateLineCredit(
  credit: number,
  line: LineForCredit,
  creditable: Creditable,
): CreditAllocation {
  const w = weights(line);
  const room = rooms(line, creditable);
  if (credit < 0 || credit > lineCreditable(line, creditable)) {
    throw new RangeError(`a line credit of ${credit} does not fit what remains of the line`);
  }
  const parts = apportion(BigInt(credit), w);
  let excess = 0n;
  parts.forEach((part, i) => {
    if (part > room[i]!) {
      excess += part - room[i]!;
      parts[i] = room[i]!;
    }
  });
  // Units that did not fit go to the parts with room, net first, then the heavier rates.
  const order = w
    .map((weight, index) => ({ weight, index }))
    .filter((p) => p.weight > 0n)
    .sort((a, b) =>
      a.index === 0 || b.index === 0
        ? a.index - b.index
        : a.weight !== b.weight
          ? Number(b.weight - a.weight)
          : a.index - b.index,
    );
  for (const { index } of order) {
    const moved = excess < room[index]! - parts[index]! ? excess : room[index]! - parts[index]!;
    parts[index]! += moved;
    excess -= moved;
  }
  const [net, ...taxes] = parts;
  const byRate = new Map(
    rateIndexes(line, creditable).map((index, i) => [index, taxes[i]!] as const),
  );
  const taxAmounts = creditable.taxAmounts.map((t, index) => {
    const onLine = byRate.has(index);
    // The line's net is taxed by each of its rates (capped at what remains taxable).
    const taxable = onLine ? Math.min(Number(net!), t.taxableAmount) : 0;
    return {
      taxRateId: t.taxRateId,
      taxableAmount: Math.max(taxable, 0),
      amount: Number(byRate.get(index) ?? 0n),
    };
  });
  const tax = Number(sum(taxes));
  return { total: credit, totalExcludingTax: Number(net!), tax, taxAmounts };
}

/** Several allocations of one credit note as one: sums per part, rates in the first's order. */
export function combineAllocations(
  allocations: readonly CreditAllocation[],
  rateIds: readonly string[],
): CreditAllocation {
  const total = (pick: (a: CreditAllocation) => number) => Number(sum(allocations.map(pick)));
  const ofRate = (id: string, field: 'taxableAmount' | 'amount') =>
    Number(
      sum(
        allocations
          .flatMap((a) => a.taxAmounts.filter((t) => t.taxRateId === id))
          .map((t) => t[field]),
      ),
    );
  return {
    total: total((a) => a.total),
    totalExcludingTax: total((a) => a.totalExcludingTax),
    tax: total((a) => a.tax),
    taxAmounts: rateIds.map((id) => ({
      taxRateId: id,
      taxableAmount: ofRate(id, 'taxableAmount'),
      amount: ofRate(id, 'amount'),
    })),
  };
}
