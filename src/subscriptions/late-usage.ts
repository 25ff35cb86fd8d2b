// What usage ingestion asks of subscriptions (src/usage/ calls these through the composition
// root): usage is closed before the last boundary whose invoice was issued — an event before it
// is `usage_period_closed` — and usage that arrives while its period's invoice is still a draft
// in its grace period changes that draft, in the transaction that accepts it.
import { getPricesWithProducts } from '../catalog/service.ts';
import { utcDateOf } from '../clock.ts';
import type { Queryable } from '../db/pool.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { getInvoice, refreshSubscriptionLines } from '../invoices/service.ts';
import type { TenantScope } from '../tenancy.ts';
import type { AggregateUsage } from './usage-lines.ts';
import { usageLine } from './usage-lines.ts';
import { selectUsageClosed, selectWaitingDrafts } from './usage-store.ts';

/** For each customer with subscriptions: the instant before which its usage is closed. */
export async function usageClosedBefore(
  db: Queryable,
  scope: TenantScope,
  customerIds: readonly string[],
): Promise<Map<string, Date>> {
  const rows = await selectUsageClosed(db, scope, customerIds);
  return new Map(rows.map((r) => [r.customer_id, r.closed]));
}

/**
 * Measures again the usage lines of the customers' drafts waiting for their grace period whose
 * periods hold an accepted event, so the draft bills what was measured when it is issued.
 */
export async function countLateUsage(
  uow: UnitOfWork,
  aggregate: AggregateUsage,
  accepted: readonly { customerId: string; timestamp: Date; now: Date }[],
): Promise<void> {
  const { tx, actor: scope } = uow;
  const customers = [...new Set(accepted.map((e) => e.customerId))];
  for (const draft of await selectWaitingDrafts(tx, scope, customers)) {
    const times = accepted.filter((e) => e.customerId === draft.customer_id);
    // The customer's time (its test clock's, if it has one).
    const now = times[0]!.now;
    const invoice = await getInvoice(tx, scope, draft.invoice_id, utcDateOf(now));
    if (invoice.status !== 'draft') continue;
    const prices = await getPricesWithProducts(
      tx,
      scope,
      invoice.lines.flatMap((l) => (l.priceId ? [l.priceId] : [])),
    );
    const updates = [];
    for (const line of invoice.lines) {
      const catalog = line.priceId ? prices.get(line.priceId) : undefined;
      if (!catalog || catalog.price.recurring?.usage !== 'metered' || !line.period) continue;
      const period = { start: new Date(line.period.start), end: new Date(line.period.end) };
      if (!times.some((e) => e.timestamp >= period.start && e.timestamp < period.end)) continue;
      const meterId = catalog.price.recurring.meterId!;
      const quantity = await aggregate(
        tx,
        scope,
        meterId,
        draft.customer_id,
        period.start,
        period.end,
      );
      const measured = usageLine(catalog, line.subscriptionItemId!, quantity, period);
      updates.push({
        lineId: line.id,
        quantity: measured.quantity,
        quantityDecimal: measured.quantityDecimal ?? null,
        amount: measured.amount,
      });
    }
    if (updates.length > 0) await refreshSubscriptionLines(uow, draft.invoice_id, updates, now);
  }
}
