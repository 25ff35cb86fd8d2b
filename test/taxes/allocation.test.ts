import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  allocateCredit,
  apportion,
  creditableTotal,
  remainingCreditable,
  type Creditable,
  type CreditAllocation,
} from '../../src/taxes/allocation.ts';
import { computeTaxBreakdown } from '../../src/taxes/breakdown.ts';
import { documents } from './breakdown.test.ts';

const exclusive19: Creditable = {
  totalExcludingTax: 10000,
  taxAmounts: [{ taxRateId: 'vat', taxableAmount: 10000, amount: 1900 }],
};

describe('apportioning by largest remainder', () => {
  it('splits exactly and gives leftover units to the largest remainders', () => {
    assert.deepEqual(apportion(100n, [1n, 1n, 1n]), [34n, 33n, 33n]);
    assert.deepEqual(apportion(10n, [7n, 3n]), [7n, 3n]);
    assert.deepEqual(apportion(1n, [10000n, 1900n]), [1n, 0n]);
    assert.deepEqual(apportion(0n, [5n, 5n]), [0n, 0n]);
    assert.deepEqual(apportion(0n, [0n, 0n]), [0n, 0n]);
    assert.throws(() => apportion(1n, [0n, 0n]), RangeError);
    assert.throws(() => apportion(-1n, [1n]), RangeError);
  });
});

describe('allocating a credit over the tax breakdown: worked examples', () => {
  it('credits half of a 19 % invoice as half of its net and half of its tax', () => {
    assert.deepEqual(allocateCredit(5950, exclusive19), {
      total: 5950,
      totalExcludingTax: 5000,
      tax: 950,
      taxAmounts: [{ taxRateId: 'vat', taxableAmount: 5000, amount: 950 }],
    });
  });

  it('splits over two rates in proportion to their gross shares', () => {
    // 100.00 at 19 % (gross 119.00) and 100.00 at 7 % (gross 107.00); total 226.00.
    const invoice: Creditable = {
      totalExcludingTax: 20000,
      taxAmounts: [
        { taxRateId: 'std', taxableAmount: 10000, amount: 1900 },
        { taxRateId: 'red', taxableAmount: 10000, amount: 700 },
      ],
    };
    const credit = allocateCredit(11300, invoice); // half
    assert.deepEqual(credit, {
      total: 11300,
      totalExcludingTax: 10000,
      tax: 1300,
      taxAmounts: [
        { taxRateId: 'std', taxableAmount: 5000, amount: 950 },
        { taxRateId: 'red', taxableAmount: 5000, amount: 350 },
      ],
    });
    // A credit of 1.00: 0.0840 and 0.0310 of tax, the rest net; the parts add up to 100.
    const small = allocateCredit(100, invoice);
    assert.equal(small.totalExcludingTax + small.tax, 100);
    assert.deepEqual(
      small.taxAmounts.map((t) => t.amount),
      [8, 3],
    );
  });

  it('credits the rest exactly once earlier credits are subtracted', () => {
    const first = allocateCredit(1, exclusive19);
    const rest = remainingCreditable(exclusive19, [first]);
    assert.equal(creditableTotal(rest), 11899);
    const second = allocateCredit(11899, rest);
    assert.equal(first.tax + second.tax, 1900);
    assert.equal(first.totalExcludingTax + second.totalExcludingTax, 10000);
  });
});

describe('allocating credits: properties', () => {
  it('credits each rate exactly its tax when the credits add up to the total', () => {
    fc.assert(
      fc.property(
        documents,
        fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 8 }),
        ({ rates, lines }, weights) => {
          const b = computeTaxBreakdown(lines, rates, 'none');
          const invoice: Creditable = {
            totalExcludingTax: Number(b.totalExcludingTax),
            taxAmounts: b.taxAmounts.map((t) => ({
              taxRateId: t.rate.id,
              taxableAmount: Number(t.taxableAmount),
              amount: Number(t.amount),
            })),
          };
          const total = Number(b.total);
          assert.equal(creditableTotal(invoice), total);
          // Random credits that add up to the total: cut it in proportion to the weights.
          const cuts = apportion(BigInt(total), weights.map(BigInt)).map(Number);
          const credits: CreditAllocation[] = [];
          for (const amount of cuts) {
            const credit = allocateCredit(amount, remainingCreditable(invoice, credits));
            assert.equal(credit.totalExcludingTax + credit.tax, amount);
            assert.equal(
              credit.tax,
              credit.taxAmounts.reduce((s, t) => s + t.amount, 0),
            );
            for (const t of credit.taxAmounts) assert.ok(t.amount >= 0 && t.taxableAmount >= 0);
            credits.push(credit);
          }
          const left = remainingCreditable(invoice, credits);
          assert.equal(left.totalExcludingTax, 0);
          for (const t of left.taxAmounts) {
            assert.equal(t.amount, 0, `tax of ${t.taxRateId} credited exactly`);
            assert.equal(t.taxableAmount, 0, `taxable amount of ${t.taxRateId} credited exactly`);
          }
        },
      ),
    );
  });

  it('never credits a part more than remains of it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 6 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (parts, fraction) => {
          const [net, ...taxes] = parts;
          const invoice: Creditable = {
            totalExcludingTax: net!,
            taxAmounts: taxes.map((amount, i) => ({
              taxRateId: `r${i}`,
              taxableAmount: 0,
              amount,
            })),
          };
          const credit = allocateCredit(Math.floor(creditableTotal(invoice) * fraction), invoice);
          assert.ok(credit.totalExcludingTax <= net!);
          credit.taxAmounts.forEach((t, i) => assert.ok(t.amount <= taxes[i]!));
        },
      ),
    );
  });
});
