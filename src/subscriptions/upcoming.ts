// The upcoming invoice: what the subscription's next boundary would bill if nothing changed,
// computed by the run's own code (./periods.ts) and written nowhere.
import type { Db } from '../db/pool.ts';
import { StateInvalidError } from '../errors.ts';
import type { TenantScope } from '../tenancy.ts';
import type { ProposedLine } from './lines.ts';
import { shownLines } from './preview.ts';
import { linesOfPeriod, pendingLines, pricedItems } from './periods.ts';
import { getSubscriptionRow } from './reading.ts';
import type { BillingReason } from './schemas.ts';

export async function upcomingInvoice(db: Db, scope: TenantScope, id: string) {
  const row = await getSubscriptionRow(db, scope, id);
  if (row.status === 'canceled') {
    throw new StateInvalidError(`Subscription ${id} is canceled; it has no upcoming invoice.`);
  }
  const items = await pricedItems(db, scope, row.id);
  const pending = await pendingLines(db, scope, row, items);
  const ending =
    row.cancel_at !== null && row.cancel_at <= (row.current_period_end ?? row.cancel_at);
  let at: Date;
  let reason: BillingReason;
  let lines: ProposedLine[];
  if (row.cancel_at_period_end || ending) {
    at = ending ? row.cancel_at! : (row.current_period_end ?? row.trial_end ?? row.start_at);
    reason = 'subscription_cancel';
    lines = pending.lines;
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
    lines = [...period, ...(reason === 'subscription_create' ? [] : pending.lines)];
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
