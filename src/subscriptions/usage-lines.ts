// Metered items, billed in arrears: at each boundary, each metered item's usage over the period
// just ended — from when its current price took effect — and the usage a price change inside
// the period left pending at the old price, each measured by its price's meter over the
// customer's events with start ≤ timestamp < end, in exact decimals, priced by the price's
// scheme and rounded once (docs/subscriptions.md, "Metered items"). Usage in a trial is free:
// a trial is never such a period.
import { lineAmount } from '../catalog/amount.ts';
import { lineQuantity } from '../invoices/service.ts';
import type { CatalogPrice } from '../catalog/service.ts';
import type { Queryable } from '../db/pool.ts';
import { newId } from '../ids.ts';
import type { TenantScope } from '../tenancy.ts';
import type { Period } from './calendar.ts';
import { isLicensed, nameOf, type PricedItem, type ProposedLine } from './lines.ts';
import type { SubscriptionRow } from './store.ts';
import type { aggregateUsage } from '../usage/service.ts';

/** A meter's aggregation over a customer's events in [from, to), as an exact decimal string. */
export type AggregateUsage = typeof aggregateUsage;

/** Usage at a price over a span, as a line: its quantity measured, its amount by the scheme. */
export function usageLine(
  catalog: CatalogPrice,
  itemId: string,
  quantity: string,
  period: Period,
): ProposedLine {
  const { product, price } = catalog;
  return {
    description: nameOf(catalog),
    ...lineQuantity(quantity),
    unitAmount: null,
    amount: lineAmount(price, quantity),
    unitCode: product.unitCode,
    taxRates: product.taxRates.length > 0 ? product.taxRates : null,
    period,
    priceId: price.id,
    subscriptionItemId: itemId,
    proration: false,
  };
}

/** A span of an item's usage left pending by a price change, to be measured when billed. */
export interface PendingUsage {
  itemId: string;
  catalog: CatalogPrice;
  period: Period;
}

/**
 * The usage lines of the period [start, end) for the customer: each metered item from when
 * its price took effect (`meteredFrom`, else the period's start), and the pending spans.
 */
export async function usageLines(
  db: Queryable,
  scope: TenantScope,
  aggregate: AggregateUsage,
  customerId: string,
  items: readonly PricedItem[],
  period: Period,
  pending: readonly PendingUsage[],
): Promise<ProposedLine[]> {
  const spans: PendingUsage[] = [];
  for (const item of items) {
    if (isLicensed(item.catalog)) continue;
    const from =
      item.meteredFrom && item.meteredFrom > period.start ? item.meteredFrom : period.start;
    if (from < period.end) {
      spans.push({
        itemId: item.id,
        catalog: item.catalog,
        period: { start: from, end: period.end },
      });
    }
  }
  const all = [...pending, ...spans];
  const quantities = await Promise.all(
    all.map((span) =>
      aggregate(
        db,
        scope,
        span.catalog.price.recurring!.meterId!,
        customerId,
        span.period.start,
        span.period.end,
      ),
    ),
  );
  return all.map((span, i) => usageLine(span.catalog, span.itemId, quantities[i]!, span.period));
}

/** Pending spans as the rows that keep them until the next invoice measures them. */
export function pendingUsageRows(spans: readonly PendingUsage[]) {
  return spans.map((span) => ({
    id: newId('pl'),
    kind: 'usage' as const,
    subscription_item_id: span.itemId,
    price_id: span.catalog.price.id,
    description: span.catalog.product.name,
    quantity: 0,
    amount: 0,
    period_start: span.period.start,
    period_end: span.period.end,
  }));
}

/**
 * The usage of the current period up to `end` (its end, or the instant the subscription ends):
 * every metered item and the pending spans; nothing for a trial, whose usage is free.
 */
export function usageUntil(
  db: Queryable,
  scope: TenantScope,
  aggregate: AggregateUsage,
  row: Pick<SubscriptionRow, 'customer_id' | 'current_period_start' | 'trial_end'>,
  items: readonly PricedItem[],
  end: Date,
  pending: readonly PendingUsage[],
): Promise<ProposedLine[]> {
  const start = row.current_period_start;
  const trial = row.trial_end !== null && start !== null && start < row.trial_end;
  if (start === null || trial) return Promise.resolve([]);
  return usageLines(db, scope, aggregate, row.customer_id, items, { start, end }, pending);
}
