// Changing a subscription (PATCH): its items with the proration behaviour asked for, the end of
// its trial, cancelAtPeriodEnd, description and metadata; and preview-change, which computes
// the same lines and writes nothing (docs/subscriptions.md, "Changes").
import type { Clock } from '../clock.ts';
import type { Db, Queryable } from '../db/pool.ts';
import type { UnitOfWork, WriteRequest, Written } from '../db/unit-of-work.ts';
import { ParameterInvalidError, StateInvalidError } from '../errors.ts';
import type { TenantScope } from '../tenancy.ts';
import { timeOn } from '../test-clocks/time.ts';
import { planChange, type ChangePlan, type ProrationBehavior } from './change-plan.ts';
import { insertPendingLines } from './ledger-store.ts';
import { pendingRows } from './lines.ts';
import { shownLines } from './preview.ts';
import { pendingUsageRows, usageLines } from './usage-lines.ts';
import { trialWarningAt } from './model.ts';
import {
  makeInvoice,
  pendingLines,
  pricedItems,
  stepOptions,
  type Billing,
  type StepOptions,
} from './periods.ts';
import { moveSubscription } from './moves.ts';
import { getSubscriptionRow } from './reading.ts';
import type { Subscription, SubscriptionUpdate } from './schemas.ts';
import { replaceItems, type SubscriptionFields, type SubscriptionRow } from './store.ts';

/** The instant of a change: `prorationDate`, else now; inside the current period. */
function changeInstant(row: SubscriptionRow, input: SubscriptionUpdate, now: Date): Date {
  if (input.prorationDate === undefined) return now;
  const at = new Date(input.prorationDate);
  const { current_period_start: start, current_period_end: end } = row;
  if (start === null || end === null || at < start || at >= end) {
    throw new ParameterInvalidError(
      'prorationDate',
      'prorationDate must lie within the current period.',
    );
  }
  return at;
}

async function plan(
  db: Queryable,
  scope: TenantScope,
  row: SubscriptionRow,
  input: SubscriptionUpdate,
  now: Date,
): Promise<ChangePlan | null> {
  if (input.items === undefined) return null;
  if (row.status === 'canceled') {
    throw new StateInvalidError(`Subscription ${row.id} is canceled; its items cannot change.`);
  }
  const behavior: ProrationBehavior = input.prorationBehavior ?? 'create_prorations';
  return planChange(db, scope, row, input.items, behavior, changeInstant(row, input, now));
}

/** The trial's new end: only while trialing (or scheduled), and in the future. */
function trialFields(
  row: SubscriptionRow,
  trialEnd: string,
  now: Date,
): Partial<SubscriptionFields> {
  if (row.status !== 'trialing' && row.status !== 'scheduled') {
    throw new StateInvalidError(
      `Subscription ${row.id} is ${row.status}; it has no trial to change.`,
    );
  }
  const end = new Date(trialEnd);
  if (end <= now || end <= row.start_at) {
    throw new ParameterInvalidError('trialEnd', 'trialEnd must be in the future.');
  }
  const movesAnchor = row.billing_cycle_anchor.getTime() === row.trial_end?.getTime();
  const fields: Partial<SubscriptionFields> = {
    trial_end: end,
    billing_cycle_anchor: movesAnchor ? end : row.billing_cycle_anchor,
  };
  if (row.status === 'trialing') {
    fields.current_period_end = end;
    fields.trial_will_end_sent =
      trialWarningAt({ trial_start: row.trial_start, trial_end: end }) <= now;
  }
  return fields;
}

/** Bills a plan as its behaviour says; returns the invoice made now, if any. */
async function billPlan(
  uow: UnitOfWork,
  row: SubscriptionRow,
  change: ChangePlan,
  behavior: ProrationBehavior,
  options: StepOptions,
): Promise<{ invoiceId: string | null; fields: Partial<SubscriptionFields> }> {
  const { tx, actor: scope } = uow;
  await replaceItems(tx, scope, row.id, change.items);
  if (change.newPeriod !== null) {
    const { period, lines } = change.newPeriod;
    const items = await pricedItems(tx, scope, row.id);
    const pending = await pendingLines(tx, scope, row, items);
    // The period ends at the change: its usage so far is billed with it.
    const spans = [...pending.usage, ...change.pendingUsage];
    const ended = { start: row.current_period_start!, end: change.at };
    const usage = await usageLines(tx, scope, options.aggregate, row.customer_id, [], ended, spans);
    const key = { periodStart: change.at, reason: 'subscription_update' as const };
    const fresh = [...change.lines, ...usage, ...lines];
    const made = await makeInvoice(uow, row, key, fresh, pending, options);
    return {
      invoiceId: made.invoiceId,
      fields: {
        interval: items[0]!.catalog.price.recurring!.interval,
        interval_count: items[0]!.catalog.price.recurring!.intervalCount,
        billing_cycle_anchor: change.at,
        current_period_start: period.start,
        current_period_end: period.end,
      },
    };
  }
  // Metered usage before the change waits, at the price it had, for the next invoice.
  await insertPendingLines(tx, scope, row.id, pendingUsageRows(change.pendingUsage));
  if (change.lines.length === 0 || behavior === 'none') return { invoiceId: null, fields: {} };
  if (behavior === 'create_prorations') {
    await insertPendingLines(tx, scope, row.id, pendingRows(change.lines));
    return { invoiceId: null, fields: {} };
  }
  const items = await pricedItems(tx, scope, row.id);
  const pending = await pendingLines(tx, scope, row, items);
  const key = { periodStart: change.at, reason: 'subscription_update' as const };
  const made = await makeInvoice(uow, row, key, change.lines, pending, options);
  return { invoiceId: made.invoiceId, fields: {} };
}

export function updateSubscription(
  db: Db,
  clock: Clock,
  billing: Billing,
  request: WriteRequest,
  id: string,
  input: SubscriptionUpdate,
): Promise<Written<Subscription>> {
  // Every status may change its metadata; what else a canceled one refuses is checked below.
  return moveSubscription(
    db,
    clock,
    request,
    id,
    () => null,
    async (row, now, uow) => {
      const { tx, actor: scope } = uow;
      const change = await plan(tx, scope, row, input, now);
      let fields: Partial<SubscriptionFields> = {};
      if (input.trialEnd !== undefined) fields = trialFields(row, input.trialEnd, now);
      if (input.cancelAtPeriodEnd !== undefined) {
        if (row.status === 'canceled') {
          throw new StateInvalidError(`Subscription ${id} is canceled.`);
        }
        fields.cancel_at_period_end = input.cancelAtPeriodEnd;
        if (input.cancelAtPeriodEnd) fields.canceled_at = now;
        else if (row.cancel_at === null) fields.canceled_at = null;
      }
      if (input.description !== undefined) fields.description = input.description;
      if (input.metadata !== undefined) fields.metadata = input.metadata;
      if (change !== null) {
        const behavior = input.prorationBehavior ?? 'create_prorations';
        const options = await stepOptions(tx, scope, now, billing);
        const billed = await billPlan(uow, row, change, behavior, options);
        fields = { ...fields, ...billed.fields };
        if (billed.invoiceId !== null) fields.latest_invoice_id = billed.invoiceId;
      }
      return { fields, event: 'subscription.updated' };
    },
  );
}

/** The lines a change would bill, with their totals; nothing is written. */
export async function previewChange(
  db: Db,
  clock: Clock,
  scope: TenantScope,
  id: string,
  input: SubscriptionUpdate,
) {
  const row = await getSubscriptionRow(db, scope, id);
  const now = await timeOn(db, scope, row.test_clock_id, clock);
  const change = await plan(db, scope, row, input, now);
  const lines = change === null ? [] : [...change.lines, ...(change.newPeriod?.lines ?? [])];
  return shownLines(db, scope, row, lines);
}
