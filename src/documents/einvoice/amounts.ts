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
}

/**
 * quantity × price / baseQuantity equals the line's net amount exactly. When the net amount
 * divides by the quantity, the price is the net unit price; otherwise (inclusive prices, whose
 * net amount is a share of the rate's taxable amount; lines priced by tiers, packages, decimal
 * unit amounts or proration, whose amount is no whole multiple of the quantity) the price is
 * quoted for the whole quantity (base quantity = quantity), which no rounding can break.
 */
export function linePricing(
  line: DocumentLine,
  currency: string,
  pricesIncludeTax: boolean,
): LinePricing {
  const net = BigInt(line.netAmount);
  const count = BigInt(Math.abs(line.quantity));
  const magnitude = net < 0n ? -net : net;
  const sign = net < 0n ? -1n : 1n;
  const price = (value: bigint) => toDecimalString(value, currency);
  if (count === 0n) {
    // Nothing invoiced: the price is shown for information (exclusive prices) or left at 0.
    const shown = pricesIncludeTax ? 0n : BigInt(Math.abs(line.unitAmount ?? 0));
    return { quantity: '0', price: price(shown), baseQuantity: null };
  }
  const quantity = (sign * count).toString();
  if (magnitude % count === 0n) {
    return { quantity, price: price(magnitude / count), baseQuantity: null };
  }
  return { quantity, price: price(magnitude), baseQuantity: count.toString() };
}
