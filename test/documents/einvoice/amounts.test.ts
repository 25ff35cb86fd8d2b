import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  amountText,
  isWritableAmount,
  linePricing,
} from '../../../src/documents/einvoice/amounts.ts';
import { taxMatchesRate } from '../../../src/documents/einvoice/tax-check.ts';
import type { DocumentLine } from '../../../src/documents/model.ts';
import { micros, scaled } from './xml-reading.ts';

/** count × 10^-places as its shortest text: (125n, 6) → "0.000125", (120n, 1) → "12". */
function decimalText(count: bigint, places: number): string {
  const digits = count.toString().padStart(places + 1, '0');
  const fraction = digits.slice(-places).replace(/0+$/, '');
  const whole = digits.slice(0, -places);
  return fraction ? `${whole}.${fraction}` : whole;
}

function line(
  quantity: number | string,
  unitAmount: number | null,
  netAmount = Number(quantity) * (unitAmount ?? 0),
): DocumentLine {
  return {
    id: 'li_1',
    description: 'x',
    quantity,
    unitCode: 'C62',
    unitAmount,
    amount: typeof quantity === 'number' && unitAmount !== null ? quantity * unitAmount : netAmount,
    netAmount,
    taxRateIds: [],
    period: null,
  };
}

describe('amounts as EN 16931 text', () => {
  it('writes minor units exactly, with at most two decimals', () => {
    assert.equal(amountText(12345, 'eur'), '123.45');
    assert.equal(amountText(-7, 'eur'), '-0.07');
    assert.equal(amountText(500, 'jpy'), '500');
    assert.equal(amountText(1250, 'kwd'), '1.25');
    assert.equal(amountText(-20, 'kwd'), '-0.02');
    assert.equal(amountText(9007199254740990, 'kwd'), '9007199254740.99');
    assert.throws(() => amountText(1235, 'kwd'), RangeError);
    assert.equal(isWritableAmount(1235, 'kwd'), false);
    assert.equal(isWritableAmount(1235, 'eur'), true);
  });
});

describe('line pricing (BT-129, BT-146, BT-149)', () => {
  it('quotes the net unit price when the net amount divides by the quantity', () => {
    assert.deepEqual(linePricing(line(3, 33333), 'eur', false), {
      quantity: '3',
      price: '333.33',
      baseQuantity: null,
      lineCharge: null,
    });
    assert.deepEqual(linePricing(line(2, 2475), 'kwd', false), {
      quantity: '2',
      price: '2.475',
      baseQuantity: null,
      lineCharge: null,
    });
  });

  it('turns a negative amount into a negative quantity at a positive price (BR-27)', () => {
    assert.deepEqual(linePricing(line(1, -4900), 'eur', false), {
      quantity: '-1',
      price: '49.00',
      baseQuantity: null,
      lineCharge: null,
    });
  });

  it('quotes an inclusive line whose net does not divide for its whole quantity (base quantity)', () => {
    assert.deepEqual(linePricing(line(3, 19999, 49997), 'eur', true), {
      quantity: '3',
      price: '499.97',
      baseQuantity: '3',
      lineCharge: null,
    });
  });

  it('writes a decimal quantity as it is, at the unit price when the net divides by it', () => {
    assert.deepEqual(linePricing(line('12.5', 10, 125), 'eur', false), {
      quantity: '12.5',
      price: '0.10',
      baseQuantity: null,
      lineCharge: null,
    });
    assert.deepEqual(linePricing(line('0.000125', null, 1), 'eur', false), {
      quantity: '0.000125',
      price: '80.00',
      baseQuantity: null,
      lineCharge: null,
    });
    assert.deepEqual(linePricing(line('1234.000000000001', null, -98765), 'eur', false), {
      quantity: '-1234.000000000001',
      price: '987.65',
      baseQuantity: '1234.000000000001',
      lineCharge: null,
    });
  });

  it('keeps quantity 0 on a line with an amount (a flat fee at zero usage) and charges the amount', () => {
    assert.deepEqual(linePricing(line(0, null, 500), 'eur', false), {
      quantity: '0',
      price: '0.00',
      baseQuantity: null,
      lineCharge: 500,
    });
    assert.equal(linePricing(line(0, null, -500), 'eur', false).lineCharge, -500);
    assert.equal(linePricing(line(0, 990, 0), 'eur', false).lineCharge, null);
  });

  it('satisfies quantity × price / base quantity + line charge = net amount exactly, for any line (PEPPOL R120)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: 10_000 }),
          // A metered quantity: any count of 10^-places, as its shortest text.
          fc
            .tuple(fc.bigInt({ min: 1n, max: 10n ** 16n }), fc.integer({ min: 1, max: 12 }))
            .map(([count, places]) => decimalText(count, places)),
        ),
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        fc.integer({ min: -100_000_000, max: 100_000_000 }),
        fc.constantFrom('eur', 'jpy', 'kwd'),
        (quantity, unitAmount, net, currency) => {
          const p = linePricing(line(quantity, unitAmount, net), currency, true);
          const scale = 10n ** BigInt({ eur: 2, jpy: 0, kwd: 3 }[currency]!);
          const base = p.baseQuantity === null ? 10n ** 12n : scaled(p.baseQuantity, 12);
          assert.ok(micros(p.price) >= 0n);
          const netMicros = (BigInt(net) * 1_000_000n) / scale;
          const chargeMicros = (BigInt(p.lineCharge ?? 0) * 1_000_000n) / scale;
          assert.equal(scaled(p.quantity, 12) * micros(p.price), (netMicros - chargeMicros) * base);
          assert.equal(p.lineCharge !== null, Number(quantity) === 0 && net !== 0);
        },
      ),
    );
  });
});

describe('the tax of a VAT group against its rate (BR-S-09, BR-CO-17)', () => {
  it('allows the rounding of one tax over many lines, and no more than one unit off', () => {
    assert.ok(taxMatchesRate(9999, 1900, '19', 'eur'));
    assert.ok(taxMatchesRate(10000, 1900, '19', 'eur'));
    assert.ok(taxMatchesRate(10000, 1801, '19', 'eur'));
    assert.equal(taxMatchesRate(10000, 1800, '19', 'eur'), false);
    assert.equal(taxMatchesRate(80000, 0, '20', 'eur'), false);
    assert.ok(taxMatchesRate(-10000, -1900, '19', 'eur'));
    assert.ok(taxMatchesRate(999, 89, '8.875', 'jpy'));
    assert.ok(taxMatchesRate(4950, 990, '20', 'kwd'));
  });

  it('allows only a tax that rounds to 0 under a rate that rounds to 0 %', () => {
    assert.ok(taxMatchesRate(100, 0, '0.25', 'eur'));
    assert.equal(taxMatchesRate(100000, 250, '0.25', 'eur'), false);
  });
});
