// A subscription as the API shows it, and the instants its calendar falls due: the periods
// (from the anchor, on the subscription's zone) and the next thing the run has to do.
import type { CatalogPrice } from '../catalog/service.ts';
import { periodAt, type Period, type Recurrence } from './calendar.ts';
import type { Subscription } from './schemas.ts';
import type { ItemRow, SubscriptionRow } from './store.ts';

/** How long before a trial's end `subscription.trial_will_end` is sent. */
export const TRIAL_WARNING_MS = 3 * 24 * 3600 * 1000;

export function recurrence(row: Pick<SubscriptionRow, 'interval' | 'interval_count'>): Recurrence {
  return { interval: row.interval, intervalCount: row.interval_count };
}

/**
 * The period that starts at `start`, and the whole period it is billed against: from `start`
 * to the next boundary of the anchor. Before the anchor that is a stub, billed against the
 * whole period that ends at the anchor.
 */
export function periodFrom(
  row: Pick<SubscriptionRow, 'billing_cycle_anchor' | 'time_zone' | 'interval' | 'interval_count'>,
  start: Date,
): { period: Period; basis: Period } {
  const basis = periodAt(row.billing_cycle_anchor, row.time_zone, recurrence(row), start);
  const { start: from, end } = basis;
  return { period: { start, end }, basis: { start: from, end } };
}

/** The whole period the current one is billed against (a stub's is longer than the stub). */
export function currentBasis(row: SubscriptionRow): Period | null {
  if (row.current_period_start === null) return null;
  return periodFrom(row, row.current_period_start).basis;
}

export function trialWarningAt(row: Pick<SubscriptionRow, 'trial_start' | 'trial_end'>): Date {
  const warning = row.trial_end!.getTime() - TRIAL_WARNING_MS;
  return new Date(Math.max(warning, row.trial_start!.getTime()));
}

function earliest(...instants: (Date | null)[]): Date | null {
  let first: Date | null = null;
  for (const at of instants) if (at !== null && (first === null || at < first)) first = at;
  return first;
}

/** The earliest instant at which the run has something to do for the subscription. */
export function nextActionAt(row: Omit<SubscriptionRow, 'next_action_at'>): Date | null {
  switch (row.status) {
    case 'canceled':
      return null;
    case 'scheduled':
      return row.start_at;
    case 'trialing':
      return earliest(
        row.trial_will_end_sent ? null : trialWarningAt(row),
        row.trial_end,
        row.cancel_at,
      );
    default:
      return earliest(row.current_period_end, row.cancel_at, row.pause_resumes_at);
  }
}

/** When the next invoice is made: the next boundary, unless the subscription ends first. */
function nextInvoiceAt(row: SubscriptionRow): Date | null {
  if (row.status === 'canceled' || row.cancel_at_period_end) return null;
  if (row.status === 'scheduled') return row.start_at;
  if (row.status === 'trialing') return row.trial_end;
  return row.current_period_end;
}

const iso = (at: Date | null) => (at === null ? null : at.toISOString());

export function subscriptionFromRow(
  row: SubscriptionRow,
  items: readonly Pick<ItemRow, 'id' | 'price_id' | 'quantity'>[],
  prices: ReadonlyMap<string, CatalogPrice>,
): Subscription {
  return {
    id: row.id,
    object: 'subscription',
    status: row.status,
    customerId: row.customer_id,
    currency: row.currency,
    items: items.map((item) => {
      const { price } = prices.get(item.price_id)!;
      return {
        id: item.id,
        object: 'subscription_item' as const,
        price: {
          id: price.id,
          productId: price.productId,
          currency: price.currency,
          nickname: price.nickname,
          recurring: {
            interval: price.recurring!.interval,
            intervalCount: price.recurring!.intervalCount,
            usage: price.recurring!.usage,
          },
        },
        quantity: item.quantity,
      };
    }),
    currentPeriod:
      row.current_period_start === null
        ? null
        : { start: iso(row.current_period_start)!, end: iso(row.current_period_end)! },
    billingCycleAnchor: row.billing_cycle_anchor.toISOString(),
    startAt: row.start_at.toISOString(),
    timeZone: row.time_zone,
    trialStart: iso(row.trial_start),
    trialEnd: iso(row.trial_end),
    cancelAtPeriodEnd: row.cancel_at_period_end,
    cancelAt: iso(row.cancel_at),
    canceledAt: iso(row.canceled_at),
    endedAt: iso(row.ended_at),
    pause:
      row.pause_behavior === null
        ? null
        : { behavior: row.pause_behavior, resumesAt: iso(row.pause_resumes_at) },
    latestInvoiceId: row.latest_invoice_id,
    nextInvoiceAt: iso(nextInvoiceAt(row)),
    testClockId: row.test_clock_id,
    daysUntilDue: row.days_until_due,
    defaultTaxRates: row.default_tax_rates,
    autoSend: row.auto_send,
    description: row.description,
    metadata: row.metadata,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
