// The rules' own test that a VAT group's tax fits its rate (BR-S-09, BR-AF-09, BR-AG-09 and
// BR-CO-17): |tax| − 1 < round(|taxable| × rate / 100, 2 decimals) < |tax| + 1, in whole
// currency units, with XPath's round (halves up); a rate that rounds to 0 % allows only a tax
// that rounds to 0 (BR-CO-17). Done in exact integers, never floats.
import { minorUnits } from '../../money/currency.ts';
import { parsePercentage, PERCENTAGE_SCALE, UNITS_PER_WHOLE } from '../../taxes/percentage.ts';

export function taxMatchesRate(
  taxableAmount: number,
  taxAmount: number,
  percent: string,
  currency: string,
): boolean {
  const units = parsePercentage(percent);
  if (units === null) return false;
  const scale = 10n ** BigInt(minorUnits(currency));
  const abs = (v: bigint) => (v < 0n ? -v : v);
  // BR-CO-17: a rate that rounds to 0 % allows only a tax that rounds to 0.
  if (units * 2n < PERCENTAGE_SCALE) {
    const doubled = 2n * BigInt(taxAmount);
    return doubled >= -scale && doubled < scale;
  }
  // Expected tax in hundredths of the currency unit, rounded half up.
  const numerator = abs(BigInt(taxableAmount)) * units * 100n;
  const denominator = scale * UNITS_PER_WHOLE;
  const expected = (2n * numerator + denominator) / (2n * denominator);
  // |tax − expected| < 1 unit, compared in units of 1/(100 · scale).
  return abs(abs(BigInt(taxAmount)) * 100n - expected * scale) < 100n * scale;
}
