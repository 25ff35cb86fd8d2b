import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  allocateCredit,
  creditableTotal,
  remainingCreditable,
  type Creditable,
  type CreditAllocation,
} from '../../src/taxes/allocation.ts';
import { computeTaxBreakdown } from '../../src/taxes/breakdown.ts';
import {
  allocateLineCredit,
  combineAllocations,
  lineCreditable,
  lineGross,
  type LineForCredit,
} from '../../src/taxes/line-allocation.ts';
import { percentageToNumber } from '../../src/taxes/percentage.ts';

const line = (amount: number, rates: [string, number][], more: Partial<LineForCredit> = {}) => ({
  amount,
  rates: rates.map(([taxRateId, percentage]) => ({ taxRateId, percentage })),
  inclusive: false,
  charged: true,
  ...more,
});

// 100.00 at 19 % and 100.00 at 7 % (exclusive): total 226.00.
const twoRates: Creditable = {
  totalExcludingTax: 20000,
  taxAmounts: [
    { taxRateId: 'std', taxableAmount: 10000, amount: 1900 },
    { taxRateId: 'red', taxableAmount: 10000, amount: 700 },
  ],
};

describe('crediting one invoice line with its own rates: worked examples', () => {
  it('credits a whole exclusive line as its amount and its own tax', () => {
    const reduced = line(10000, [['red', 7]]);
    assert.equal(lineGross(reduced), 10700);
    assert.deepEqual(allocateLineCredit(10700, reduced, twoRates), {
      total: 10700,
      totalExcludingTax: 10000,
      tax: 700,
      taxAmounts: [
        { taxRateId: 'std', taxableAmount: 0, amount: 0 },
        { taxRateId: 'red', taxableAmount: 10000, amount: 700 },
      ],
    });
  });

  it('splits part of a line in the proportions 100 : p', () => {
    const standard = line(10000, [['std', 19]]);
    const credit = allocateLineCredit(5950, standard, twoRates);
    assert.equal(credit.totalExcludingTax, 5000);
    assert.deepEqual(
      credit.taxAmounts.map((t) => t.amount),
      [950, 0],
    );
  });

  it('treats an inclusive line as gross and takes the included tax out', () => {
    const invoice: Creditable = {
      totalExcludingTax: 10000,
      taxAmounts: [{ taxRateId: 'vat', taxableAmount: 10000, amount: 1900 }],
    };
    const inclusive = line(11900, [['vat', 19]], { inclusive: true });
    assert.equal(lineGross(inclusive), 11900);
    const credit = allocateLineCredit(11900, inclusive, invoice);
    assert.equal(credit.totalExcludingTax, 10000);
    assert.equal(credit.tax, 1900);
  });

  it('credits only the amount of a line that carried no tax (exempt customer)', () => {
    const invoice: Creditable = {
      totalExcludingTax: 10000,
      taxAmounts: [{ taxRateId: 'vat', taxableAmount: 10000, amount: 0 }],
    };
    const exempt = line(10000, [['vat', 19]], { charged: false });
    assert.equal(lineGross(exempt), 10000);
    assert.equal(allocateLineCredit(10000, exempt, invoice).tax, 0);
  });

  it('moves a unit that does not fit to the line’s other parts, and refuses what cannot fit', () => {
    // Two lines of 0.05 at 10 %: each line alone carries 0.01 of tax (0.005 rounded up), the
    // invoice 0.01 in all (0.010).
    const invoice: Creditable = {
      totalExcludingTax: 10,
      taxAmounts: [{ taxRateId: 'vat', taxableAmount: 10, amount: 1 }],
    };
    const small = line(5, [['vat', 10]]);
    assert.equal(lineGross(small), 6);
    const first = allocateLineCredit(6, small, invoice);
    assert.deepEqual([first.totalExcludingTax, first.tax], [5, 1]);
    const rest = remainingCreditable(invoice, [first]);
    assert.equal(lineCreditable(small, rest), 5);
    assert.throws(() => allocateLineCredit(6, small, rest), RangeError);
    const second = allocateLineCredit(5, small, rest);
    assert.deepEqual([second.totalExcludingTax, second.tax], [5, 0]);
    // Only tax left: a credit of 1 that would be net goes to the tax instead.
    const onlyTax: Creditable = {
      totalExcludingTax: 0,
      taxAmounts: [{ taxRateId: 'vat', taxableAmount: 0, amount: 1 }],
    };
    assert.deepEqual(allocateLineCredit(1, small, onlyTax).taxAmounts, [
      { taxRateId: 'vat', taxableAmount: 0, amount: 1 },
    ]);
  });

  it('adds the allocations of one credit note per part', () => {
    const a = allocateCredit(11300, twoRates); // half of everything
    const b = allocateLineCredit(
      1070,
      line(10000, [['red', 7]]),
      remainingCreditable(twoRates, [a]),
    );
    const both = combineAllocations([a, b], ['std', 'red']);
    assert.equal(both.total, 12370);
    assert.equal(both.totalExcludingTax, 11000);
    assert.deepEqual(
      both.taxAmounts.map((t) => [t.taxableAmount, t.amount]),
      [
        [5000, 950],
        [6000, 420],
      ],
    );
  });

  it('refuses more than remains of the line’s own parts after an amount credit', () => {
    const half = remainingCreditable(twoRates, [allocateCredit(11300, twoRates)]);
    const reduced = line(10000, [['red', 7]]);
    // 100.00 of amount and 3.50 of the reduced rate's tax remain for this line.
    assert.equal(lineCreditable(reduced, half), 10350);
    assert.throws(() => allocateLineCredit(10351, reduced, half), RangeError);
    const all = allocateLineCredit(10350, reduced, half);
    assert.deepEqual([all.totalExcludingTax, all.tax], [10000, 350]);
  });
});

// Random invoices: up to 3 rates (all inclusive or all exclusive), up to 8 lines each with
// some of them; percentages with up to 4 decimals.
const invoices = fc
  .record({
    inclusive: fc.boolean(),
    percentages: fc.array(fc.integer({ min: 0, max: 300_000 }), { minLength: 1, maxLength: 3 }),
    lines: fc.array(
      fc.record({
        amount: fc.integer({ min: 0, max: 1_000_000_000 }),
        pick: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 8 },
    ),
  })
  .map(({ inclusive, percentages, lines }) => {
    const rates = percentages.map((p, i) => ({
      id: `r${i}`,
      displayName: `R${i}`,
      percentage: BigInt(p),
      inclusive,
    }));
    const taxable = lines.map((l) => ({
      amount: BigInt(l.amount),
      taxRateIds: rates.filter((_, i) => l.pick[i]).map((r) => r.id),
    }));
    const b = computeTaxBreakdown(taxable, new Map(rates.map((r) => [r.id, r])), 'none');
    const invoice: Creditable = {
      totalExcludingTax: Number(b.totalExcludingTax),
      taxAmounts: b.taxAmounts.map((t) => ({
        taxRateId: t.rate.id,
        taxableAmount: Number(t.taxableAmount),
        amount: Number(t.amount),
      })),
    };
    const forCredit = taxable.map((l): LineForCredit => ({
      amount: Number(l.amount),
      rates: rates
        .filter((r) => l.taxRateIds.includes(r.id))
        .map((r) => ({ taxRateId: r.id, percentage: percentageToNumber(r.percentage) })),
      inclusive,
      charged: true,
    }));
    return { invoice, lines: forCredit, total: Number(b.total) };
  });

describe('crediting lines: properties', () => {
  it('never credits a part beyond what remains, and the rest credits each rate exactly', () => {
    fc.assert(
      fc.property(
        invoices,
        fc.array(fc.tuple(fc.nat(7), fc.double({ min: 0, max: 1, noNaN: true })), {
          maxLength: 10,
        }),
        ({ invoice, lines, total }, picks) => {
          const credits: CreditAllocation[] = [];
          const onLine = lines.map(() => 0);
          for (const [pick, fraction] of picks) {
            const index = pick % lines.length;
            const target = lines[index]!;
            const remaining = remainingCreditable(invoice, credits);
            const left = Math.min(
              lineGross(target) - onLine[index]!,
              lineCreditable(target, remaining),
            );
            const amount = Math.floor(Math.max(left, 0) * fraction);
            const credit = allocateLineCredit(amount, target, remaining);
            assert.equal(credit.totalExcludingTax + credit.tax, amount);
            assert.ok(credit.totalExcludingTax <= remaining.totalExcludingTax);
            credit.taxAmounts.forEach((t, i) => {
              assert.ok(t.amount >= 0 && t.amount <= remaining.taxAmounts[i]!.amount);
              assert.ok(t.taxableAmount >= 0);
              if (!target.rates.some((r) => r.taxRateId === t.taxRateId)) {
                assert.equal(t.amount, 0);
              }
            });
            credits.push(credit);
            onLine[index]! += amount;
          }
          // Whatever the line credits took, an amount credit of the rest finishes exactly.
          const remaining = remainingCreditable(invoice, credits);
          const rest = creditableTotal(remaining);
          assert.equal(rest, total - onLine.reduce((s, a) => s + a, 0));
          credits.push(allocateCredit(rest, remaining));
          const left = remainingCreditable(invoice, credits);
          assert.equal(left.totalExcludingTax, 0);
          for (const t of left.taxAmounts) assert.equal(t.amount, 0, `tax of ${t.taxRateId}`);
        },
      ),
    );
  });
});
