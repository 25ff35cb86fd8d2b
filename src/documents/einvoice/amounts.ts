// Amounts and prices as the e-invoice writes them. EN 16931 allows at most two decimals on
// every amount (BR-DEC-*, UBL-DT-01), but not on the item price (BT-146), which may carry the
// currency's full precision. A line's price and quantity are chosen so that Peppol's rule
// R120 (line net = quantity × price / base quantity) holds exactly, and the price is never
// negative (BR-27): a negative line (a discount) gets a negative quantity.
import { minorUnits } from '../../money/currency.ts';
import { toDecimalString } from '../../money/format.ts';
import type { DocumentLine } from '../model.ts';

function decimalText(value: bigint, digits: number): string {
  const negative = value < 0n;
  const text = (negative ? -value : value).toString().padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits);
  const fraction = text.slice(text.length - digits);
  return `${negative ? '-' : ''}${whole}${digits > 0 ? `.${fraction}` : ''}`;
}

/**
 * True when the amount can be written with at most two decimals: always for currencies with
 * 0–2 minor digits; for three-digit currencies (KWD, BHD, …) only whole multiples of 10.
 */
export function isWritableAmount(amount: number, currency: string): boolean {
  const digits = minorUnits(currency);
  return digits <= 2 || BigInt(amount) % 10n ** BigInt(digits - 2) === 0n;
}

/** An amount (minor units) as EN 16931 decimal text: 12345 eur → "123.45", 1250 kwd → "1.25". */
export function amountText(amount: number, currency: string): string {
  const digits = minorUnits(currency);
  if (digits <= 2) return toDecimalString(amount, currency);
  const scale = 10n ** BigInt(digits - 2);
  const value = BigInt(amount);
  if (value % scale !== 0n) {
    throw new RangeError(`${amount} ${currency} has more than two decimals`);
  }
  return decimalText(value / scale, 2);
}

/** The item net price (BT-146), its base quantity (BT-149) and the invoiced quantity (BT-129). */
export interface LinePricing {
  quantity: string;
  price: string;
  /** null for a base quantity of one (left out). */
  baseQuantity: string | null;
  /**
   * The net amount of a line with quantity 0 (a flat fee at zero usage), in minor units: a line
   * charge (BG-28), or, below 0, a line allowance (BG-27). null on every other line.
   */
  lineCharge: number | null;
}

/** A quantity as a whole count of a power of ten: 12 → 12 of 1, "12.5" → 125 of 10. */
function countOf(quantity: number | string): { text: string; count: bigint; scale: bigint } {
  const text = String(quantity).replace(/^-/, '');
  const [whole, fraction = ''] = text.split('.');
  return { text, count: BigInt(`${whole}${fraction}`), scale: 10n ** BigInt(fraction.length) };
}

/**
 * quantity × price / baseQuantity (+ the line charge) equals the line's net amount exactly
 * (PEPPOL-EN16931-R120). When the net amount divides by the quantity (a decimal quantity
 * included: 1.25 for 12.5 units is 0.10 each), the price is the net unit price; otherwise
 * (inclusive prices, whose net amount is a share of the rate's taxable amount; lines priced by
 * tiers, packages, decimal unit amounts or proration, whose amount is no whole multiple of the
 * quantity) the price is quoted for the whole quantity (base quantity = quantity), which no
 * rounding can break. A line with quantity 0 and an amount (a tier's flat fee at zero usage)
 * keeps its true quantity, 0, and carries its amount as a line charge.
 */
export function linePricing(
  line: DocumentLine,
  currency: string,
  pricesIncludeTax: boolean,
): LinePricing {
  const net = BigInt(line.netAmount);
  const { text, count, scale } = countOf(line.quantity);
  const magnitude = net < 0n ? -net : net;
  const price = (value: bigint) => toDecimalString(value, currency);
  if (count === 0n) {
    // Nothing invoiced: the price is shown for information (exclusive prices) or left at 0.
    const shown = pricesIncludeTax ? 0n : BigInt(Math.abs(line.unitAmount ?? 0));
    const lineCharge = net === 0n ? null : line.netAmount;
    return { quantity: '0', price: price(shown), baseQuantity: null, lineCharge };
  }
  const quantity = `${net < 0n ? '-' : ''}${text}`;
  if ((magnitude * scale) % count === 0n) {
    return {
      quantity,
      price: price((magnitude * scale) / count),
      baseQuantity: null,
      lineCharge: null,
    };
  }
  return { quantity, price: price(magnitude), baseQuantity: text, lineCharge: null };
}
