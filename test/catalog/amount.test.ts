import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  formatDecimal,
  lineAmount,
  parseDecimal,
  unitAmountText,
} from '../../src/catalog/amount.ts';
import type { PriceTerms, PriceTier } from '../../src/catalog/schemas.ts';
import { ParameterInvalidError } from '../../src/errors.ts';
import { MAX_AMOUNT } from '../../src/money/amount.ts';

const none = { unitAmount: null, unitAmountDecimal: null, packageSize: null };
const perUnit = (unit: number | string): PriceTerms => ({
  billingScheme: 'per_unit',
  ...none,
  ...(typeof unit === 'number' ? { unitAmount: unit } : { unitAmountDecimal: unit }),
  tiersMode: null,
  tiers: null,
});
const packaged = (unitAmount: number, packageSize: number): PriceTerms => ({
  ...perUnit(unitAmount),
  billingScheme: 'package',
  packageSize,
});
const tier = (upTo: number | null, unit: number | string | null, flatAmount = 0): PriceTier => ({
  upTo,
  unitAmount: typeof unit === 'number' ? unit : null,
  unitAmountDecimal: typeof unit === 'string' ? unit : null,
  flatAmount,
});
const tiered = (tiersMode: 'graduated' | 'volume', tiers: PriceTier[]): PriceTerms => ({
  billingScheme: 'tiered',
  ...none,
  tiersMode,
  tiers,
});

// An independent reference: exact fractions n / d, reduced, with no fixed scale.
interface Fraction {
  n: bigint;
  d: bigint;
}
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
function fraction(n: bigint, d: bigint): Fraction {
  const g = gcd(n < 0n ? -n : n, d) || 1n;
  return { n: n / g, d: d / g };
}
function decimal(text: string | number): Fraction {
  const [whole, part = ''] = String(text).split('.');
  return fraction(BigInt(whole! + part), 10n ** BigInt(part.length));
}
const add = (a: Fraction, b: Fraction) => fraction(a.n * b.d + b.n * a.d, a.d * b.d);
const times = (a: Fraction, b: Fraction) => fraction(a.n * b.n, a.d * b.d);
const minus = (a: Fraction, b: Fraction) => add(a, { n: -b.n, d: b.d });
const atMost = (a: Fraction, b: Fraction) => a.n * b.d <= b.n * a.d;
/** Half away from zero, for amounts ≥ 0. */
const rounded = (a: Fraction) => Number((2n * a.n + a.d) / (2n * a.d));
const unitOf = (t: PriceTier) => decimal(t.unitAmount ?? t.unitAmountDecimal ?? 0);

/** Graduated by the contract's words: each tier's exact part, summed, rounded once. */
function graduatedReference(tiers: PriceTier[], quantity: string): number {
  const q = decimal(quantity);
  let total = fraction(0n, 1n);
  let below = fraction(0n, 1n);
  for (const [i, t] of tiers.entries()) {
    if (i > 0 && atMost(q, below)) break;
    const top = t.upTo === null || atMost(q, decimal(t.upTo)) ? q : decimal(t.upTo);
    total = add(total, add(times(minus(top, below), unitOf(t)), decimal(t.flatAmount)));
    below = t.upTo === null ? below : decimal(t.upTo);
  }
  return rounded(total);
}

// Generators: decimal texts with up to 12 places, and tiers with increasing bounds.
const decimalText = (maxWhole: number) =>
  fc
    .tuple(fc.integer({ min: 0, max: maxWhole }), fc.integer({ min: 0, max: 12 }), fc.nat())
    .map(([whole, places, digits]) =>
      places === 0
        ? String(whole)
        : `${whole}.${String(digits).padStart(places, '0').slice(-places)}`,
    )
    .filter((text) => parseDecimal(text) !== null);
const unitAmount = fc.oneof(fc.integer({ min: 0, max: 100_000 }), decimalText(1000));
const tiersArb = fc
  .array(
    fc.record({
      width: fc.integer({ min: 1, max: 1000 }),
      unit: unitAmount,
      flat: fc.integer({ min: 0, max: 10_000 }),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((specs) => {
    let upTo = 0;
    return specs.map((s, i) => {
      upTo += s.width;
      return tier(i === specs.length - 1 ? null : upTo, s.unit, s.flat);
    });
  });

describe('decimal text', () => {
  it('reads up to 12 places exactly and writes the shortest form', () => {
    assert.equal(parseDecimal('0.025'), 25_000_000_000n);
    assert.equal(parseDecimal('12'), 12_000_000_000_000n);
    assert.equal(formatDecimal(parseDecimal('0.0250')!), '0.025');
    assert.equal(formatDecimal(parseDecimal('7.000000000000')!), '7');
    for (const bad of ['0.0000000000015', '-1', '1e3', '01', '.5', '5.', ' 5', '']) {
      assert.equal(parseDecimal(bad), null, bad);
    }
  });
});

describe('line amounts: worked examples', () => {
  it('per unit: quantity × unitAmount, as invoice lines compute it', () => {
    assert.equal(lineAmount(perUnit(1500), 3), 4500);
    assert.equal(lineAmount(perUnit(1500), 0), 0);
  });

  it('per unit with a decimal price: exact, then rounded once', () => {
    assert.equal(lineAmount(perUnit('0.025'), 1_000_000), 25000);
    assert.equal(lineAmount(perUnit('0.025'), 3), 0); // 0.075
    assert.equal(lineAmount(perUnit('0.025'), 20), 1); // 0.5 → 1
    assert.equal(lineAmount(perUnit('0.000000000001'), '1.5'), 0); // 0.0000000000015
    assert.equal(lineAmount(perUnit('1.5'), '0.000000000001'), 0);
    assert.equal(lineAmount(perUnit('0.333333333333'), 3), 1);
  });

  it('rounds halves away from zero', () => {
    assert.equal(lineAmount(perUnit('0.5'), 1), 1);
    assert.equal(lineAmount(perUnit('0.5'), 3), 2);
    assert.equal(lineAmount(perUnit('0.5'), 5), 3);
    assert.equal(lineAmount(perUnit('2.5'), 1), 3);
    assert.equal(lineAmount(perUnit('0.25'), 2), 1);
    assert.equal(lineAmount(perUnit('0.499999999999'), 1), 0);
    assert.equal(lineAmount(perUnit(1), '2.5'), 3);
  });

  it('graduated: each unit at its tier, each reached flat amount once, rounded once', () => {
    // 10 × 1.00 + 5.00 flat, then 5 × 0.505 + 10.00 flat = 27.525 → 27.53.
    const terms = tiered('graduated', [tier(10, 100, 500), tier(null, '50.5', 1000)]);
    assert.equal(lineAmount(terms, 15), 2753);
    assert.equal(lineAmount(terms, 10), 1500); // the second tier is not reached
    assert.equal(lineAmount(terms, 11), 2551); // 1500 + 50.5 + 1000 = 2550.5
    // A quantity of 0 falls in the first tier: its flat amount is a base fee.
    assert.equal(lineAmount(terms, 0), 500);
    // Never per tier: 0.5 + 0.5 = 1, where rounding each part would give 2.
    assert.equal(lineAmount(tiered('graduated', [tier(1, '0.5'), tier(null, '0.5')]), 2), 1);
    // Decimal quantities split at the bound.
    assert.equal(lineAmount(terms, '10.5'), 1500 + 25 + 1000); // 25.25 → 25
  });

  it('volume: every unit at the tier the total falls in, with that tier’s flat amount', () => {
    const terms = tiered('volume', [tier(10, 100, 50), tier(100, 80), tier(null, '0.5', 7)]);
    assert.equal(lineAmount(terms, 10), 1050);
    assert.equal(lineAmount(terms, 11), 880);
    assert.equal(lineAmount(terms, 100), 8000);
    assert.equal(lineAmount(terms, 101), 58); // 50.5 + 7 = 57.5 → 58
    assert.equal(lineAmount(terms, 0), 50);
    assert.equal(lineAmount(terms, '10.000000000001'), 800); // above 10: the second tier
  });

  it('package: whole packages, a partial one rounded up', () => {
    const terms = packaged(500, 10);
    assert.equal(lineAmount(terms, 0), 0);
    assert.equal(lineAmount(terms, 1), 500);
    assert.equal(lineAmount(terms, 10), 500);
    assert.equal(lineAmount(terms, 11), 1000);
    assert.equal(lineAmount(terms, '10.000000000001'), 1000);
    assert.equal(lineAmount({ ...terms, unitAmount: null, unitAmountDecimal: '0.5' }, 25), 2);
  });

  it('refuses an amount beyond 2^53 − 1 minor units, naming the parameter', () => {
    assert.equal(lineAmount(perUnit(MAX_AMOUNT), 1), MAX_AMOUNT);
    assert.throws(
      () => lineAmount(perUnit(MAX_AMOUNT), 2, 'items.0.quantity'),
      (error: unknown) =>
        error instanceof ParameterInvalidError &&
        error.param === 'items.0.quantity' &&
        /exceeds the largest amount, 9007199254740991/.test(error.message),
    );
    const flat = tiered('graduated', [tier(1, 0, MAX_AMOUNT), tier(null, 0, 1)]);
    assert.throws(() => lineAmount(flat, 2), ParameterInvalidError);
  });

  it('throws a RangeError for quantities the API never passes', () => {
    for (const quantity of [-1, 1.5, Number.NaN, '-1', '0.0000000000001', '1e3']) {
      assert.throws(() => lineAmount(perUnit(1), quantity), RangeError, String(quantity));
    }
  });

  it('shows the unit price of per-unit prices only', () => {
    assert.equal(unitAmountText(perUnit('0.0250')), '0.025');
    assert.equal(unitAmountText(perUnit(1500)), '1500');
    assert.equal(unitAmountText(packaged(500, 10)), null);
    assert.equal(unitAmountText(tiered('volume', [tier(null, 1)])), null);
  });
});

describe('line amounts: properties', () => {
  it('per unit: the exact product rounded once, half away from zero', () => {
    fc.assert(
      fc.property(unitAmount, decimalText(1_000_000), (unit, quantity) => {
        const expected = rounded(times(decimal(unit), decimal(quantity)));
        assert.equal(lineAmount(perUnit(unit), quantity), expected);
      }),
    );
  });

  it('per unit with whole amounts: exactly quantity × unitAmount, or refused beyond 2^53 − 1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_AMOUNT }),
        fc.integer({ min: 0, max: 1_000_000_000 }),
        (unit, quantity) => {
          const product = BigInt(unit) * BigInt(quantity);
          if (product <= BigInt(MAX_AMOUNT)) {
            assert.equal(lineAmount(perUnit(unit), quantity), Number(product));
          } else assert.throws(() => lineAmount(perUnit(unit), quantity), ParameterInvalidError);
        },
      ),
    );
  });

  it('graduated equals the sum of the tiers’ exact parts, rounded once', () => {
    fc.assert(
      fc.property(tiersArb, decimalText(5000), (tiers, quantity) => {
        const amount = lineAmount(tiered('graduated', tiers), quantity);
        assert.equal(amount, graduatedReference(tiers, quantity));
      }),
    );
  });

  it('graduated, whole quantities: the sum over each unit of its tier’s price', () => {
    fc.assert(
      fc.property(tiersArb, fc.integer({ min: 0, max: 3000 }), (tiers, quantity) => {
        let total = fraction(0n, 1n);
        let reached = 0;
        for (let unit = 1; unit <= quantity; unit++) {
          const at = tiers.findIndex((t) => t.upTo === null || unit <= t.upTo);
          total = add(total, unitOf(tiers[at]!));
          reached = Math.max(reached, at);
        }
        for (let i = 0; i <= reached; i++) total = add(total, decimal(tiers[i]!.flatAmount));
        assert.equal(lineAmount(tiered('graduated', tiers), quantity), rounded(total));
      }),
    );
  });

  it('graduated with one tier is per unit plus its flat amount', () => {
    fc.assert(
      fc.property(unitAmount, decimalText(100_000), (unit, quantity) => {
        const one = tiered('graduated', [tier(null, unit, 0)]);
        assert.equal(lineAmount(one, quantity), lineAmount(perUnit(unit), quantity));
      }),
    );
  });

  it('volume never falls as the quantity grows within a tier', () => {
    fc.assert(
      fc.property(tiersArb, decimalText(5000), decimalText(5000), (tiers, a, b) => {
        const [low, high] = atMost(decimal(a), decimal(b)) ? [a, b] : [b, a];
        const tierOf = (q: string) =>
          tiers.findIndex((t) => t.upTo === null || atMost(decimal(q), decimal(t.upTo)));
        fc.pre(tierOf(low) === tierOf(high));
        const terms = tiered('volume', tiers);
        assert.ok(lineAmount(terms, low) <= lineAmount(terms, high));
        // And it is the tier's price on the whole quantity, plus its flat amount.
        const t = tiers[tierOf(high)]!;
        const exact = add(times(decimal(high), unitOf(t)), decimal(t.flatAmount));
        assert.equal(lineAmount(terms, high), rounded(exact));
      }),
    );
  });

  it('package: whole packages rounded up, the same as the next full package', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (unit, size, quantity) => {
          const terms = packaged(unit, size);
          const packages = Math.ceil(quantity / size);
          assert.equal(lineAmount(terms, quantity), packages * unit);
          assert.equal(lineAmount(terms, quantity), lineAmount(terms, packages * size));
        },
      ),
    );
  });
});
