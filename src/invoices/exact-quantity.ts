// The quantity of a line made from a price: whole units, or what a meter measured, an exact
// decimal with up to 12 places. A line keeps a whole quantity in `quantity` alone; one that is
// not whole in `quantityDecimal` (its shortest text, "12.5"), with `quantity` its ceiling, so
// that every reader of the whole quantity sees 0 only where nothing was used (migration 0045).
import { DECIMAL_PLACES, formatDecimal, parseDecimal } from '../catalog/amount.ts';

const SCALE = 10n ** BigInt(DECIMAL_PLACES);

export interface LineQuantity {
  /** Whole units; the ceiling of `quantityDecimal` when that is set. */
  quantity: number;
  /** The exact quantity when it is not whole, as its shortest decimal text; else null. */
  quantityDecimal: string | null;
}

/**
 * A line's quantity fields for an exact quantity: `"12.5"` → 13 and `"12.5"`; `12`, `"12"` and
 * `"12.000"` → 12 and null. RangeError for anything but a decimal ≥ 0 with up to 12 places
 * whose ceiling is a safe integer.
 */
export function lineQuantity(exact: number | string): LineQuantity {
  const scaled =
    typeof exact === 'number' && Number.isSafeInteger(exact) && exact >= 0
      ? BigInt(exact) * SCALE
      : typeof exact === 'string'
        ? parseDecimal(exact)
        : null;
  if (scaled === null) {
    throw new RangeError(`quantity ${String(exact)} is not a decimal ≥ 0 with up to 12 places`);
  }
  const ceiling = (scaled + SCALE - 1n) / SCALE;
  if (ceiling > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`quantity ${String(exact)} exceeds 2^53 − 1`);
  }
  return {
    quantity: Number(ceiling),
    quantityDecimal: scaled % SCALE === 0n ? null : formatDecimal(scaled),
  };
}

/** Why these fields break the rule above (a defect of the line's maker), or null. */
export function quantityDefect({ quantity, quantityDecimal }: LineQuantity): string | null {
  if (!Number.isSafeInteger(quantity) || quantity < 0) return 'quantity is not whole';
  if (quantityDecimal === null) return null;
  const scaled = parseDecimal(quantityDecimal);
  if (scaled === null || formatDecimal(scaled) !== quantityDecimal || scaled % SCALE === 0n) {
    return `quantityDecimal '${quantityDecimal}' is not the shortest text of a decimal that is not whole`;
  }
  if (lineQuantity(quantityDecimal).quantity !== quantity) {
    return 'quantity is not the ceiling of quantityDecimal';
  }
  return null;
}

/** The exact quantity × unitAmount, in minor units; null when it is no whole amount. */
export function exactLineAmount(line: LineQuantity, unitAmount: number): bigint | null {
  if (line.quantityDecimal === null) return BigInt(line.quantity) * BigInt(unitAmount);
  const product = parseDecimal(line.quantityDecimal)! * BigInt(unitAmount);
  return product % SCALE === 0n ? product / SCALE : null;
}
