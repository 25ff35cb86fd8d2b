import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  computeTaxBreakdown,
  MixedTaxBehaviourError,
  type RateForBreakdown,
  type TaxableLine,
} from '../../src/taxes/breakdown.ts';
import { formatPercentage, parsePercentage } from '../../src/taxes/percentage.ts';

function rate(id: string, percentage: string, inclusive = false): RateForBreakdown {
  return { id, displayName: id.toUpperCase(), percentage: parsePercentage(percentage)!, inclusive };
}
const rates = (...list: RateForBreakdown[]) => new Map(list.map((r) => [r.id, r]));
const line = (amount: number, ...taxRateIds: string[]): TaxableLine => ({
  amount: BigInt(amount),
  taxRateIds,
});
const summary = (b: ReturnType<typeof computeTaxBreakdown>) => ({
  subtotal: Number(b.subtotal),
  tax: Number(b.tax),
  totalExcludingTax: Number(b.totalExcludingTax),
  total: Number(b.total),
  amounts: b.taxAmounts.map((t) => [t.rate.id, Number(t.taxableAmount), Number(t.amount)]),
});

describe('percentages', () => {
  it('reads percentages exactly from their decimal text', () => {
    assert.equal(parsePercentage(19), 190000n);
    assert.equal(parsePercentage(8.875), 88750n);
    assert.equal(parsePercentage(7.7), 77000n);
    assert.equal(parsePercentage(0.0001), 1n);
    assert.equal(parsePercentage(99.9999), 999999n);
    assert.equal(parsePercentage(0), 0n);
    assert.equal(parsePercentage('8.8750'), 88750n); // as PostgreSQL prints numeric(7,4)
  });

  it('refuses more than four decimals, 100 and above, and negatives', () => {
    for (const p of [0.00001, 1e-7, 8.87501, 100, 150, -1, 1e21, Number.NaN]) {
      assert.equal(parsePercentage(p), null, String(p));
    }
  });

  it('prints percentages without trailing zeros', () => {
    assert.equal(formatPercentage(88750n), '8.875');
    assert.equal(formatPercentage(190000n), '19');
    assert.equal(formatPercentage(1n), '0.0001');
  });

  it('round-trips every percentage with at most four decimals (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999 }), (units) => {
        const text = formatPercentage(BigInt(units));
        assert.equal(parsePercentage(Number(text)), BigInt(units));
      }),
    );
  });
});

describe('tax breakdown: worked examples checked by hand', () => {
  it('rounds 19 % VAT once per rate: 3 × 33.33 EUR = 99.99, tax 18.9981 → 19.00', () => {
    const vat = rate('vat', '19');
    const b = computeTaxBreakdown(
      [line(3333, 'vat'), line(3333, 'vat'), line(3333, 'vat')],
      rates(vat),
      'none',
    );
    // Per line it would be 3 × 6.33 = 18.99.
    assert.deepEqual(summary(b), {
      subtotal: 9999,
      tax: 1900,
      totalExcludingTax: 9999,
      total: 11899,
      amounts: [['vat', 9999, 1900]],
    });
  });

  it('charges 8.875 % sales tax, half a cent rounded away from zero: 100.00 → 8.875 → 8.88', () => {
    const b = computeTaxBreakdown([line(10000, 'ny')], rates(rate('ny', '8.875')), 'none');
    assert.deepEqual(summary(b), {
      subtotal: 10000,
      tax: 888,
      totalExcludingTax: 10000,
      total: 10888,
      amounts: [['ny', 10000, 888]],
    });
  });

  it('takes 7.7 % inclusive VAT out of CHF 100.00: 100 − 100/1.077 = 7.1495 → 7.15', () => {
    const b = computeTaxBreakdown([line(10000, 'ch')], rates(rate('ch', '7.7', true)), 'none');
    assert.deepEqual(summary(b), {
      subtotal: 10000,
      tax: 715,
      totalExcludingTax: 9285,
      total: 10000,
      amounts: [['ch', 9285, 715]],
    });
  });

  it('works in yen (no minor unit): 10 % on 3 × ¥333 = ¥999 → ¥99.9 → ¥100', () => {
    const b = computeTaxBreakdown([line(999, 'jct')], rates(rate('jct', '10')), 'none');
    assert.deepEqual(summary(b).amounts, [['jct', 999, 100]]);
    assert.equal(b.total, 1099n);
  });

  it('works in dinar (three decimals): 5 % on KWD 3.702 = 0.1851 → 0.185', () => {
    const b = computeTaxBreakdown([line(3702, 'kw')], rates(rate('kw', '5')), 'none');
    assert.deepEqual(summary(b).amounts, [['kw', 3702, 185]]);
    assert.equal(b.total, 3887n);
  });

  it('keeps two rates apart: state 4 % on 150.00 and city 4.5 % on 100.00', () => {
    const b = computeTaxBreakdown(
      [line(10000, 'state', 'city'), line(5000, 'state')],
      rates(rate('state', '4'), rate('city', '4.5')),
      'none',
    );
    assert.deepEqual(summary(b), {
      subtotal: 15000,
      tax: 1050,
      totalExcludingTax: 15000,
      total: 16050,
      amounts: [
        ['state', 15000, 600],
        ['city', 10000, 450],
      ],
    });
  });

  it('charges exempt and reverse-charge customers no tax, keeping the rate at 0', () => {
    for (const status of ['exempt', 'reverse'] as const) {
      const b = computeTaxBreakdown([line(9999, 'vat')], rates(rate('vat', '19')), status);
      assert.deepEqual(summary(b), {
        subtotal: 9999,
        tax: 0,
        totalExcludingTax: 9999,
        total: 9999,
        amounts: [['vat', 9999, 0]],
      });
    }
  });

  it('refuses inclusive and exclusive rates on one document', () => {
    assert.throws(
      () =>
        computeTaxBreakdown(
          [line(100, 'a'), line(100, 'b')],
          rates(rate('a', '19'), rate('b', '7.7', true)),
          'none',
        ),
      MixedTaxBehaviourError,
    );
  });

  it('takes several inclusive rates out of a line together', () => {
    // 120.00 including 10 % and 10 %: net 100.00, each rate 10.00 (not 120 − 120/1.1 = 10.91).
    const b = computeTaxBreakdown(
      [line(12000, 'a', 'b')],
      rates(rate('a', '10', true), rate('b', '10', true)),
      'none',
    );
    assert.deepEqual(summary(b), {
      subtotal: 12000,
      tax: 2000,
      totalExcludingTax: 10000,
      total: 12000,
      amounts: [
        ['a', 10000, 1000],
        ['b', 10000, 1000],
      ],
    });
  });

  it('takes the net of several inclusive rates once: each rate taxes the same net amount', () => {
    // 123.41 including 10 % and 10 %: each rate's tax is 123.41 × 10/120 = 10.2842 → 10.28, so
    // the tax is 20.56 and the net 102.85. Taking the rates' tax out together (20.5683 → 20.57)
    // would leave each rate a taxable amount of 102.84, a unit off the invoice's own net.
    const b = computeTaxBreakdown(
      [line(12341, 'a', 'b')],
      rates(rate('a', '10', true), rate('b', '10', true)),
      'none',
    );
    assert.deepEqual(summary(b), {
      subtotal: 12341,
      tax: 2056,
      totalExcludingTax: 10285,
      total: 12341,
      amounts: [
        ['a', 10285, 1028],
        ['b', 10285, 1028],
      ],
    });
  });

  it('leaves lines without rates untaxed', () => {
    const b = computeTaxBreakdown([line(500), line(1000, 'vat')], rates(rate('vat', '10')), 'none');
    assert.deepEqual(summary(b), {
      subtotal: 1500,
      tax: 100,
      totalExcludingTax: 1500,
      total: 1600,
      amounts: [['vat', 1000, 100]],
    });
  });
});

// Random documents: up to 4 rates (all inclusive or all exclusive), up to 12 lines each with
// some of the rates.
const documents = fc
  .record({
    inclusive: fc.boolean(),
    percentages: fc.array(fc.integer({ min: 0, max: 999_999 }), { minLength: 1, maxLength: 4 }),
    lines: fc.array(
      fc.record({
        amount: fc.integer({ min: 0, max: 10_000_000_000 }),
        pick: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  })
  .map(({ inclusive, percentages, lines }) => {
    const list = percentages.map((p, i) => ({
      id: `r${i}`,
      displayName: `R${i}`,
      percentage: BigInt(p),
      inclusive,
    }));
    return {
      rates: new Map(list.map((r) => [r.id, r])),
      lines: lines.map((l) => ({
        amount: BigInt(l.amount),
        taxRateIds: list.filter((_, i) => l.pick[i]).map((r) => r.id),
      })),
    };
  });

describe('tax breakdown: properties', () => {
  it('adds up: exclusive total = subtotal + tax, inclusive total = subtotal', () => {
    fc.assert(
      fc.property(documents, ({ rates, lines }) => {
        const b = computeTaxBreakdown(lines, rates, 'none');
        assert.equal(
          b.subtotal,
          lines.reduce((s, l) => s + l.amount, 0n),
        );
        assert.equal(
          b.tax,
          b.taxAmounts.reduce((s, t) => s + t.amount, 0n),
        );
        assert.equal(b.total, b.inclusive ? b.subtotal : b.subtotal + b.tax);
        assert.equal(b.totalExcludingTax, b.total - b.tax);
      }),
    );
  });

  it("puts each rate's tax within half a minor unit of the exact value", () => {
    fc.assert(
      fc.property(documents, ({ rates, lines }) => {
        const b = computeTaxBreakdown(lines, rates, 'none');
        for (const t of b.taxAmounts) {
          // exact = Σ amount × p / D over the rate's lines, p in 1/10000 percent; D = 10^6, or
          // 10^6 + the line's inclusive percentages together; |tax − exact| ≤ 1/2.
          let [n, d] = [0n, 1n];
          for (const l of lines.filter((l) => l.taxRateIds.includes(t.rate.id))) {
            const together = l.taxRateIds.reduce((s, id) => s + rates.get(id)!.percentage, 0n);
            const D = t.rate.inclusive ? 1_000_000n + together : 1_000_000n;
            [n, d] = [n * D + l.amount * t.rate.percentage * d, d * D];
          }
          const error = t.amount * d - n;
          assert.ok(2n * (error < 0n ? -error : error) <= d, `${t.rate.id}: ${t.amount}`);
          assert.ok(t.taxableAmount >= 0n && t.amount >= 0n);
        }
        assert.ok(b.totalExcludingTax >= 0n);
      }),
    );
  });
});

// Inclusive documents whose lines fall in groups with disjoint sets of 1–5 rates in all (a
// group's rates appear on no other line), and lines without rates; amounts may be negative
// (discount lines) as long as each group adds up to at least 0, as the API requires.
const groupedDocuments = fc
  .record({
    percentages: fc.array(fc.integer({ min: 0, max: 999_999 }), { minLength: 1, maxLength: 5 }),
    cuts: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    lines: fc.array(
      fc.record({
        amount: fc.integer({ min: -1_000_000, max: 10_000_000_000 }),
        group: fc.nat(5),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  })
  .map(({ percentages, cuts, lines }) => {
    const list = percentages.map((p, i) => ({
      id: `r${i}`,
      displayName: `R${i}`,
      percentage: BigInt(p),
      inclusive: true,
    }));
    // Consecutive rates form a group until a cut; group index beyond the last: no rates.
    const groups: string[][] = [[]];
    list.forEach((r, i) => {
      if (i > 0 && cuts[i - 1]) groups.push([]);
      groups.at(-1)!.push(r.id);
    });
    const taxable = lines.map((l) => ({
      amount: BigInt(l.amount),
      taxRateIds: groups[l.group] ?? [],
    }));
    // No group (nor the document) may add up to less than 0.
    for (const ids of [...groups, []]) {
      const members = taxable.filter(
        (l) => l.taxRateIds === ids || (ids.length === 0 && l.taxRateIds.length === 0),
      );
      const total = members.reduce((s, l) => s + l.amount, 0n);
      if (total < 0n && members.length > 0) members[0]!.amount -= total;
    }
    return { rates: new Map(list.map((r) => [r.id, r])), groups, lines: taxable };
  });

describe('tax breakdown of inclusive rates: properties', () => {
  it("adds up: every rate of a group has the group's net as its taxable amount, and the nets make totalExcludingTax", () => {
    fc.assert(
      fc.property(groupedDocuments, ({ rates, groups, lines }) => {
        const b = computeTaxBreakdown(lines, rates, 'none');
        const byRate = new Map(b.taxAmounts.map((t) => [t.rate.id, t]));
        let nets = 0n;
        for (const ids of groups) {
          const members = lines.filter((l) => l.taxRateIds === ids);
          if (members.length === 0) continue;
          const gross = members.reduce((s, l) => s + l.amount, 0n);
          const tax = ids.reduce((s, id) => s + byRate.get(id)!.amount, 0n);
          for (const id of ids) {
            assert.equal(byRate.get(id)!.taxableAmount, gross - tax, `${id} of ${ids}`);
          }
          nets += gross - tax;
        }
        const untaxed = lines.filter((l) => l.taxRateIds.length === 0);
        nets += untaxed.reduce((s, l) => s + l.amount, 0n);
        assert.equal(nets, b.totalExcludingTax);
        assert.equal(b.totalExcludingTax + b.tax, b.total);
        assert.equal(b.total, b.subtotal);
      }),
    );
  });

  it("gives every rate the invoice's net as its taxable amount when all lines carry the same rates", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 999_999 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.integer({ min: 0, max: 10_000_000_000 }), { minLength: 1, maxLength: 12 }),
        (percentages, amounts) => {
          const list = percentages.map((p, i) => rate(`r${i}`, formatPercentage(BigInt(p)), true));
          const ids = list.map((r) => r.id);
          const b = computeTaxBreakdown(
            amounts.map((a) => line(a, ...ids)),
            rates(...list),
            'none',
          );
          for (const t of b.taxAmounts) assert.equal(t.taxableAmount, b.totalExcludingTax);
          assert.equal(b.totalExcludingTax + b.tax, b.total);
        },
      ),
    );
  });

  it('keeps each taxable amount within a unit per rate and line group of the exact net', () => {
    fc.assert(
      fc.property(documents, ({ rates, lines }) => {
        const b = computeTaxBreakdown(lines, rates, 'none');
        if (!b.inclusive) return;
        assert.equal(b.totalExcludingTax + b.tax, b.total);
        for (const t of b.taxAmounts) {
          // exact net = Σ over the rate's line groups of gross × D / (D + P); each group's
          // share of each of its rates' tax is rounded down or up, so |error| < Σ |group's rates|.
          const groups = new Map<string, { gross: bigint; together: bigint; size: bigint }>();
          for (const l of lines.filter((l) => l.taxRateIds.includes(t.rate.id))) {
            const key = [...l.taxRateIds].sort().join();
            const group = groups.get(key) ?? {
              gross: 0n,
              together: l.taxRateIds.reduce((s, id) => s + rates.get(id)!.percentage, 0n),
              size: BigInt(l.taxRateIds.length),
            };
            group.gross += l.amount;
            groups.set(key, group);
          }
          let [n, d] = [0n, 1n];
          let bound = 0n;
          for (const g of groups.values()) {
            const D = 1_000_000n + g.together;
            [n, d] = [n * D + g.gross * 1_000_000n * d, d * D];
            bound += g.size;
          }
          const error = t.taxableAmount * d - n;
          assert.ok((error < 0n ? -error : error) < bound * d, `${t.rate.id}: ${t.taxableAmount}`);
        }
      }),
    );
  });
});

export { documents };
