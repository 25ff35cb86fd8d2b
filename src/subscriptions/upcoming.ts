// The upcoming invoice: what the subscription's next boundary would bill if nothing changed,
// computed by the run's own code (./periods.ts) and written nowhere.
import type { Db } from '../db/pool.ts';
import { StateInvalidError } from '../errors.ts';
import type { TenantScope } from '../tenancy.ts';
import { isLicensed, type ProposedLine } from './lines.ts';
import { shownLines } from './preview.ts';
import { linesOfPeriod, pendingLines, pricedItems, type Billing } from './periods.ts';
import { usageUntil } from './usage-lines.ts';
import type { Clock } from '../clock.ts';
import { timeOn } from '../test-clocks/time.ts';
import { getSubscriptionRow } from './reading.ts';
import type { BillingReason } from './schemas.ts';

export async function upcomingInvoice(
  db: Db,
  clock: Clock,
  billing: Billing,
  scope: TenantScope,
  id: string,
) {
  const row = await getSubscriptionRow(db, scope, id);
  if (row.status === 'canceled') {
    throw new StateInvalidError(`Subscription ${id} is canceled; it has no upcoming invoice.`);
  }
  const items = await pricedItems(db, scope, row.id);
  const pending = await pendingLines(db, scope, row, items);
  // Metered usage so far (up to now, or the end if that comes first), in arrears.
  const now = await timeOn(db, scope, row.test_clock_id, clock);
  const until = (end: Date) =>
    usageUntil(db, scope, billing.aggregate, row, items, end < now ? end : now, pending.usage);
  const ending =
    row.cancel_at !== null && row.cancel_at <= (row.current_period_end ?? row.cancel_at);
  let at: Date;
  let reason: BillingReason;
  let lines: ProposedLine[];
  if (row.cancel_at_period_end || ending) {
    at = ending ? row.cancel_at! : (row.current_period_end ?? row.trial_end ?? row.start_at);
    reason = 'subscription_cancel';
    lines = [...(await until(at)), ...pending.lines];
  } else {
    at =
      row.status === 'scheduled'
        ? row.start_at
        : row.status === 'trialing'
          ? row.trial_end!
          : row.current_period_end!;
    reason =
      row.status === 'scheduled' && row.trial_end === null
        ? 'subscription_create'
        : 'subscription_cycle';
    const period =
      row.status === 'scheduled' && row.trial_end !== null
        ? []
        : linesOfPeriod(row, items, at).lines;
    const arrears =
      reason === 'subscription_create' ? [] : [...(await until(at)), ...pending.lines];
    lines = [...period, ...arrears];
  }
  return {
    id: null,
    object: 'upcoming_invoice' as const,
    subscriptionId: row.id,
    customerId: row.customer_id,
    currency: row.currency,
    billingReason: reason,
    createdAt: at.toISOString(),
    ...(await shownLines(db, scope, row, lines)),
  };
}

/** The current period's usage of each metered item so far (GET /v1/subscriptions/{id}/usage). */
export async function currentUsage(
  db: Db,
  clock: Clock,
  billing: Billing,
  scope: TenantScope,
  id: string,
) {
  // The subscription and its items are read side by side (one round trip less; the items of
  // an id of no subscription are none, and the 404 comes from the subscription's read).
  const [row, priced] = await Promise.all([
    getSubscriptionRow(db, scope, id),
    pricedItems(db, scope, id),
  ]);
  const items = priced.filter((i) => !isLicensed(i.catalog));
  const start = row.current_period_start;
  const end = row.current_period_end;
  if (start === null || end === null) return { data: [] };
  const now = await timeOn(db, scope, row.test_clock_id, clock);
  const data = await Promise.all(
    items.map(async (item) => {
      const meterId = item.catalog.price.recurring!.meterId!;
      const to = end < now ? end : now;
      const value = await billing.aggregate(db, scope, meterId, row.customer_id, start, to);
      return {
        subscriptionItemId: item.id,
        meterId,
        period: { start: start.toISOString(), end: end.toISOString() },
        value,
      };
    }),
  );
  return { data };
}
