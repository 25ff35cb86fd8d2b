// The lines a subscription bills: a licensed item for a period (in advance, prorated over the
// whole period when the period is a stub), and the credit and charge of a change inside a
// period (docs/subscriptions.md, "Proration"). Pure: prices, items and instants in, lines out.
import { lineAmount } from '../catalog/amount.ts';
import { t } from '../documents/i18n.ts';
import type { DocumentLocale } from '../documents/model.ts';
import { newId } from '../ids.ts';
import type { CatalogPrice } from '../catalog/service.ts';
import type { PricedLine } from '../invoices/service.ts';
import { localDate, type Period, type Recurrence } from './calendar.ts';
import { prorate } from './proration.ts';

/** An item with its price and product, as the subscription holds it now. */
export interface PricedItem {
  id: string;
  quantity: number;
  /** What the item was billed for its current period, as a whole period's amount. */
  billedFull: number;
  /** A metered item: since when its usage is billed at its current price (null: the period's start). */
  meteredFrom: Date | null;
  catalog: CatalogPrice;
}

/** A line before it is on an invoice: what an invoice line gets, with the period as instants. */
export type ProposedLine = Omit<PricedLine, 'period' | 'quantityDecimal'> & {
  period: Period;
  proration: boolean;
  /** A metered line's exact quantity when it is not whole. */
  quantityDecimal?: string | null;
};

export function recurrenceOf(catalog: CatalogPrice): Recurrence {
  const { interval, intervalCount } = catalog.price.recurring!;
  return { interval, intervalCount };
}

export function isLicensed(catalog: CatalogPrice): boolean {
  return catalog.price.recurring?.usage !== 'metered';
}

/** A whole period's amount of `quantity` at this price, rounded once. */
export function fullAmount(catalog: CatalogPrice, quantity: number): number {
  return lineAmount(catalog.price, quantity);
}

/** A line's description: the product's name, with the price's nickname when it has one. */
export function nameOf(catalog: CatalogPrice): string {
  const { product, price } = catalog;
  return price.nickname ? `${product.name} (${price.nickname})` : product.name;
}

function lineOf(
  item: Pick<PricedItem, 'id' | 'quantity' | 'catalog'>,
  fields: Pick<ProposedLine, 'description' | 'amount' | 'period' | 'proration'> & {
    unitAmount?: number | null;
  },
): ProposedLine {
  const { product, price } = item.catalog;
  return {
    quantity: item.quantity,
    unitAmount: null,
    unitCode: product.unitCode,
    taxRates: product.taxRates.length > 0 ? product.taxRates : null,
    priceId: price.id,
    subscriptionItemId: item.id,
    ...fields,
  };
}

/**
 * A licensed item billed in advance for `period`. `basis` is the whole period it belongs to:
 * the same as `period`, or longer for a stub (the first period before the anchor), which is
 * billed as `full × (period / basis)` with create_prorations and not at all with none.
 */
export function periodLine(
  item: PricedItem,
  period: Period,
  basis: Period,
  stub: 'create_prorations' | 'none',
): ProposedLine | null {
  const full = fullAmount(item.catalog, item.quantity);
  const whole = period.start.getTime() === basis.start.getTime();
  if (!whole && stub === 'none') return null;
  const { price } = item.catalog;
  const perUnit = price.billingScheme === 'per_unit' && price.unitAmount != null;
  return lineOf(item, {
    description: nameOf(item.catalog),
    amount: whole ? full : prorate(full, basis, period.start, period.end),
    unitAmount: whole && perUnit ? price.unitAmount! : null,
    period,
    proration: !whole,
  });
}

/**
 * The lines of changing an item at `at` inside its period `basis` (docs/subscriptions.md): a
 * credit of the unused part of what the old item was billed, and a charge of the new item's
 * whole-period amount for the rest of the period; both over [at, end).
 */
export function prorationLines(
  old: PricedItem | null,
  next: PricedItem | null,
  basis: Period,
  at: Date,
  locale: DocumentLocale,
): ProposedLine[] {
  const period = { start: at, end: basis.end };
  const lines: ProposedLine[] = [];
  if (old !== null && old.billedFull !== 0) {
    lines.push(
      lineOf(old, {
        description: t(locale, 'line.unusedTime', { item: nameOf(old.catalog) }),
        amount: -prorate(old.billedFull, basis, at),
        period,
        proration: true,
      }),
    );
  }
  if (next !== null) {
    const amount = prorate(fullAmount(next.catalog, next.quantity), basis, at);
    lines.push(
      lineOf(next, {
        description: t(locale, 'line.remainingTime', { item: nameOf(next.catalog) }),
        amount,
        period,
        proration: true,
      }),
    );
  }
  return lines;
}

/** A proposed line as an invoice stores it: the period's calendar dates in the zone. */
export function invoiceLine(line: ProposedLine, timeZone: string): PricedLine {
  return {
    description: line.description,
    quantity: line.quantity,
    quantityDecimal: line.quantityDecimal ?? null,
    unitAmount: line.unitAmount,
    amount: line.amount,
    unitCode: line.unitCode,
    taxRates: line.taxRates,
    period: {
      start: line.period.start,
      end: line.period.end,
      startDate: localDate(line.period.start, timeZone),
      // The period is [start, end): its last day is the day of the last second before end.
      endDate: localDate(new Date(line.period.end.getTime() - 1000), timeZone),
    },
    priceId: line.priceId,
    subscriptionItemId: line.subscriptionItemId,
  };
}

/** New ids for proration lines kept pending. */
export function pendingRows(lines: readonly ProposedLine[]) {
  return lines.map((l) => ({
    id: newId('pl'),
    subscription_item_id: l.subscriptionItemId,
    price_id: l.priceId,
    description: l.description,
    quantity: l.quantity,
    amount: l.amount,
    period_start: l.period.start,
    period_end: l.period.end,
    kind: 'proration' as const,
  }));
}
