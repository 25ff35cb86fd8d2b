import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  divideRounded,
  isSafeAmount,
  lineAmount,
  MAX_AMOUNT,
  sum,
} from '../../src/money/amount.ts';
import { isCurrency, minorUnits } from '../../src/money/currency.ts';
import { formatMoney, toDecimalString } from '../../src/money/format.ts';

describe('currencies', () => {
  it('knows ISO 4217 codes in lower case only', () => {
    for (const code of ['eur', 'usd', 'jpy', 'kwd', 'chf', 'gbp', 'huf'])
      assert.ok(isCurrency(code), code);
    for (const code of ['EUR', 'Eur', 'xyz', 'eu', 'euro', '', 'xxx', 'xau', 'dem']) {
      assert.equal(isCurrency(code), false, code);
    }
  });

  it('gives the minor units of ISO 4217, also where display digits differ', () => {
    assert.equal(minorUnits('eur'), 2);
    assert.equal(minorUnits('jpy'), 0);
    assert.equal(minorUnits('krw'), 0);
    assert.equal(minorUnits('kwd'), 3);
    assert.equal(minorUnits('bhd'), 3);
    // CLDR shows forints and rupiah without decimals; ISO 4217 has two.
    assert.equal(minorUnits('huf'), 2);
    assert.equal(minorUnits('idr'), 2);
    assert.equal(minorUnits('iqd'), 3);
    assert.throws(() => minorUnits('EUR'), RangeError);
  });
});

describe('exact amounts', () => {
  it('rounds halves away from zero', () => {
    const cases: [bigint, bigint, bigint][] = [
      [5n, 2n, 3n],
      [-5n, 2n, -3n],
      [7n, 2n, 4n],
      [4n, 3n, 1n],
      [5n, 3n, 2n],
      [-4n, 3n, -1n],
      [-5n, 3n, -2n],
      [0n, 7n, 0n],
      [189981n, 100n, 1900n],
      [5n, -2n, -3n],
    ];
    for (const [n, d, expected] of cases) assert.equal(divideRounded(n, d), expected, `${n}/${d}`);
  });

  it('rounds to the nearest integer, within half a unit (property)', () => {
    fc.assert(
      fc.property(fc.bigInt(), fc.bigInt({ min: 1n, max: 10n ** 12n }), (n, d) => {
        const q = divideRounded(n, d);
        const error = q * d - n; // q − n/d, scaled by d
        assert.ok(2n * (error < 0n ? -error : error) <= d);
        // Exactly half: away from zero.
        if (2n * (error < 0n ? -error : error) === d) assert.equal(q < 0n, n < 0n);
      }),
    );
  });

  it('multiplies and sums in BigInt, and tells what leaves the safe range', () => {
    assert.equal(lineAmount(3, 3333), 9999n);
    assert.equal(lineAmount(0, MAX_AMOUNT), 0n);
    assert.equal(lineAmount(2, MAX_AMOUNT), 2n * BigInt(MAX_AMOUNT));
    assert.equal(isSafeAmount(BigInt(MAX_AMOUNT)), true);
    assert.equal(isSafeAmount(BigInt(MAX_AMOUNT) + 1n), false);
    assert.equal(isSafeAmount(-BigInt(MAX_AMOUNT) - 1n), false);
    assert.equal(sum([MAX_AMOUNT, MAX_AMOUNT]), 2n * BigInt(MAX_AMOUNT));
  });
});

describe('money for people', () => {
  it('turns minor units into decimal text by string arithmetic', () => {
    assert.equal(toDecimalString(12345, 'eur'), '123.45');
    assert.equal(toDecimalString(5, 'eur'), '0.05');
    assert.equal(toDecimalString(-7, 'eur'), '-0.07');
    assert.equal(toDecimalString(0, 'eur'), '0.00');
    assert.equal(toDecimalString(500, 'jpy'), '500');
    assert.equal(toDecimalString(5, 'kwd'), '0.005');
    assert.equal(toDecimalString(MAX_AMOUNT, 'eur'), '90071992547409.91');
  });

  it('formats in the currency with exactly its minor units', () => {
    assert.equal(formatMoney(1900, 'eur'), '€19.00');
    assert.equal(formatMoney(123456, 'usd'), '$1,234.56');
    assert.equal(formatMoney(1099, 'jpy'), '¥1,099');
    assert.equal(formatMoney(3887, 'kwd').replace(/\s/g, ' '), 'KWD 3.887');
    assert.equal(formatMoney(-1, 'eur'), '-€0.01');
    // Beyond 2^53 / 100 a float division would already be wrong in the last digit.
    assert.equal(formatMoney(MAX_AMOUNT, 'usd'), '$90,071,992,547,409.91');
    assert.equal(formatMoney(10000, 'chf').replace(/\s/g, ' '), 'CHF 100.00');
  });
});
