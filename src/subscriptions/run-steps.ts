// What happens to a subscription at an instant of its calendar: it starts, a trial warns and
// ends, a period begins (and is invoiced), it is canceled, a pause ends. Each step runs in the
// unit of work of the run (or of the request that starts the subscription) on the locked row,
// at the instant it was due — a late run bills the period that began at the boundary.
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { prorationLines, isLicensed, type ProposedLine } from './lines.ts';
import { currentBasis, nextActionAt, trialWarningAt } from './model.ts';
import {
  lineLocale,
  linesOfPeriod,
  makeInvoice,
  pendingLines,
  pricedItems,
  type StepOptions,
} from './periods.ts';
import type { BillingReason } from './schemas.ts';
import { shown } from './reading.ts';
import { usageUntil } from './usage-lines.ts';
import type { BatchReads } from './batch-reads.ts';
import {
  saveSubscription,
  updateItemBilling,
  type SubscriptionFields,
  type SubscriptionRow,
} from './store.ts';

export type { StepOptions } from './periods.ts';

/** Saves the row with its next action recomputed. */
export async function saveWithNextAction(
  uow: UnitOfWork,
  row: SubscriptionRow,
  changes: Partial<SubscriptionFields>,
): Promise<SubscriptionRow> {
  const next = { ...row, ...changes };
  next.next_action_at = nextActionAt(next);
  return saveSubscription(uow.tx, uow.actor, row.id, next);
}

/**
 * Starts the period that begins at `start`: the licensed items billed in advance with the
 * pending prorations, in one invoice made once for (subscription, start, reason).
 */
export async function startPeriod(
  uow: UnitOfWork,
  row: SubscriptionRow,
  start: Date,
  reason: BillingReason,
  options: StepOptions,
): Promise<SubscriptionRow> {
  const { tx, actor: scope } = uow;
  const { reads } = options;
  const items = await pricedItems(tx, scope, row.id, reads);
  const { period, lines, billed } = linesOfPeriod(row, items, start);
  const pending = await pendingLines(tx, scope, row, items, reads);
  // Metered items in arrears: the period that ends here.
  const usage = await usageUntil(tx, scope, options.aggregate, row, items, start, pending.usage);
  const key = { periodStart: start, reason };
  const made = await makeInvoice(uow, row, key, [...lines, ...usage], pending, options);
  // What each item is billed at for the new period; a new period's metered usage counts at the
  // current price from its start. Nothing else of the items changes here, and an item billed
  // as it was is not written.
  const next = items.map((item) => ({
    ...item,
    billedFull: billed.get(item.id) ?? 0,
    meteredFrom: null,
  }));
  await updateItemBilling(
    tx,
    scope,
    row.id,
    next
      .filter(
        (item, i) => item.billedFull !== items[i]!.billedFull || items[i]!.meteredFrom !== null,
      )
      .map((item) => ({ id: item.id, billed_full: item.billedFull, metered_from: null })),
  );
  reads?.itemsWritten(row.id, next);
  return saveWithNextAction(uow, row, {
    status: row.status === 'paused' || row.status === 'past_due' ? row.status : 'active',
    current_period_start: period.start,
    current_period_end: period.end,
    latest_invoice_id: made.invoiceId ?? row.latest_invoice_id,
  });
}

/** The credit for the unused part of the current period from `at`, per licensed item. */
async function unusedCredit(
  uow: UnitOfWork,
  row: SubscriptionRow,
  at: Date,
  reads: BatchReads | undefined,
) {
  const basis = currentBasis(row);
  if (basis === null || at >= basis.end) return [];
  const [items, locale] = await Promise.all([
    pricedItems(uow.tx, uow.actor, row.id, reads),
    lineLocale(uow.tx, uow.actor, row, reads),
  ]);
  return items
    .filter((item) => isLicensed(item.catalog))
    .flatMap((item) => prorationLines(item, null, basis, at, locale));
}

/** Ends the subscription at `at`: its last invoice (unless empty), then canceled. */
export async function endSubscription(
  uow: UnitOfWork,
  row: SubscriptionRow,
  at: Date,
  options: StepOptions,
): Promise<SubscriptionRow> {
  let latest = row.latest_invoice_id;
  if (row.cancel_invoice_now) {
    const { tx, actor: scope } = uow;
    const { reads } = options;
    const credit: ProposedLine[] = row.cancel_prorate
      ? await unusedCredit(uow, row, at, reads)
      : [];
    const items = await pricedItems(tx, scope, row.id, reads);
    const pending = await pendingLines(tx, scope, row, items, reads);
    const usage = await usageUntil(tx, scope, options.aggregate, row, items, at, pending.usage);
    const key = { periodStart: at, reason: 'subscription_cancel' as const };
    const made = await makeInvoice(uow, row, key, [...usage, ...credit], pending, options);
    latest = made.invoiceId ?? latest;
  }
  const ended = await saveWithNextAction(uow, row, {
    status: 'canceled',
    ended_at: at,
    canceled_at: row.canceled_at ?? options.now,
    current_period_end:
      row.current_period_end && at < row.current_period_end ? at : row.current_period_end,
    pause_behavior: null,
    pause_resumes_at: null,
    latest_invoice_id: latest,
  });
  uow.event('subscription.canceled', await shown(uow.tx, uow.actor, ended, options.reads));
  return ended;
}

/**
 * Does the earliest thing due for the subscription at or before `options.now`; returns the
 * row as it is after, or null when nothing was due.
 */
export async function stepSubscription(
  uow: UnitOfWork,
  row: SubscriptionRow,
  options: StepOptions,
): Promise<SubscriptionRow | null> {
  const { now } = options;
  if (row.next_action_at === null || row.next_action_at > now) return null;
  const at = row.next_action_at;
  const { tx, actor: scope } = uow;
  let next: SubscriptionRow;
  if (row.status === 'scheduled') {
    if (row.trial_end !== null) {
      next = await saveWithNextAction(uow, row, {
        status: 'trialing',
        trial_start: at,
        current_period_start: at,
        current_period_end: row.trial_end,
      });
    } else {
      next = await startPeriod(uow, row, at, 'subscription_create', options);
    }
  } else if (row.cancel_at !== null && at.getTime() === row.cancel_at.getTime()) {
    return endSubscription(uow, row, at, options);
  } else if (row.status === 'trialing') {
    if (!row.trial_will_end_sent && at.getTime() === trialWarningAt(row).getTime()) {
      next = await saveWithNextAction(uow, row, { trial_will_end_sent: true });
      uow.event('subscription.trial_will_end', await shown(tx, scope, next, options.reads));
      return next;
    }
    if (row.cancel_at_period_end) return endSubscription(uow, row, at, options);
    next = await startPeriod(uow, { ...row, status: 'active' }, at, 'subscription_cycle', options);
  } else if (row.pause_resumes_at !== null && at.getTime() === row.pause_resumes_at.getTime()) {
    next = await saveWithNextAction(uow, row, {
      status: 'active',
      pause_behavior: null,
      pause_resumes_at: null,
    });
    uow.event('subscription.resumed', await shown(tx, scope, next, options.reads));
    return next;
  } else if (row.cancel_at_period_end) {
    return endSubscription(uow, row, at, options);
  } else {
    next = await startPeriod(uow, row, at, 'subscription_cycle', options);
  }
  uow.event('subscription.updated', await shown(tx, scope, next, options.reads));
  return next;
}
