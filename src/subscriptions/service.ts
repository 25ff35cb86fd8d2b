// Subscription rules: creating one (start, trial, anchor, the first invoice in the same
// transaction), reading and listing them. Changes are in ./changes.ts, cancel and pause in
// ./ending.ts, the run that bills the calendar in ./run.ts, reads in ./reading.ts
// (docs/subscriptions.md).
import { getPricesWithProducts, type CatalogPrice } from '../catalog/service.ts';
import type { Clock } from '../clock.ts';
import { getCustomerRow } from '../customers/service.ts';
import type { Db } from '../db/pool.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { ParameterInvalidError } from '../errors.ts';
import { newId } from '../ids.ts';
import { getSettingsRow } from '../settings/service.ts';
import { getTaxRatesForUse } from '../taxes/service.ts';
import { timeOn } from '../test-clocks/time.ts';
import { boundary } from './calendar.ts';
import { checkedItems } from './items.ts';
import { nextActionAt } from './model.ts';
import { shown } from './reading.ts';
import { stepOptions, type Billing } from './periods.ts';
import { startPeriod } from './run-steps.ts';
import type { Subscription, SubscriptionCreate } from './schemas.ts';
import {
  insertSubscription,
  replaceItems,
  type SubscriptionFields,
  type SubscriptionRow,
} from './store.ts';

/** How far in the past a start may lie and still mean "now" (a client's clock runs behind). */
const START_SLACK_MS = 60_000;

function timing(input: SubscriptionCreate, now: Date, timeZone: string, first: CatalogPrice) {
  const requested = input.startAt === undefined ? now : new Date(input.startAt);
  if (requested.getTime() < now.getTime() - START_SLACK_MS) {
    throw new ParameterInvalidError('startAt', 'startAt is in the past; give now or later.');
  }
  const start = requested < now ? now : requested;
  if (input.trialEnd !== undefined && input.trialDays !== undefined) {
    throw new ParameterInvalidError('trialDays', 'Give trialEnd or trialDays, not both.');
  }
  const trialEnd =
    input.trialEnd !== undefined
      ? new Date(input.trialEnd)
      : input.trialDays !== undefined
        ? boundary(start, timeZone, { interval: 'day', intervalCount: input.trialDays }, 1)
        : null;
  if (trialEnd !== null && trialEnd <= start) {
    throw new ParameterInvalidError('trialEnd', 'trialEnd must be after the start.');
  }
  const from = trialEnd ?? start;
  const anchor = input.billingCycleAnchor === undefined ? from : new Date(input.billingCycleAnchor);
  const every = { interval: first.price.recurring!.interval, intervalCount: 1 };
  const latest = boundary(
    from,
    timeZone,
    { ...every, intervalCount: first.price.recurring!.intervalCount },
    1,
  );
  if (anchor < from || anchor >= latest) {
    throw new ParameterInvalidError(
      'billingCycleAnchor',
      `billingCycleAnchor must lie within one period after ${trialEnd ? 'the trial’s end' : 'the start'} (from ${from.toISOString()}, before ${latest.toISOString()}).`,
    );
  }
  return { start, trialEnd, anchor };
}

/**
 * Creates a subscription. One that starts now without a trial gets its first invoice (reason
 * subscription_create) in the same transaction; one that starts later is scheduled.
 */
export function createSubscription(
  db: Db,
  clock: Clock,
  billing: Billing,
  request: WriteRequest,
  input: SubscriptionCreate,
): Promise<Written<Subscription>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const defaults = input.defaultTaxRates ?? [];
    const [customer, settings, prices] = await Promise.all([
      getCustomerRow(tx, scope, input.customerId),
      getSettingsRow(tx, scope),
      getPricesWithProducts(
        tx,
        scope,
        input.items.map((i) => i.priceId),
      ),
      getTaxRatesForUse(
        tx,
        scope,
        [{ ids: defaults, param: 'defaultTaxRates' }],
        new Set(defaults),
      ),
    ]);
    const items = checkedItems(input.items, prices);
    const first = prices.get(items[0]!.price_id)!;
    const now = await timeOn(tx, scope, customer.test_clock_id, clock);
    const timeZone = customer.time_zone ?? settings.time_zone;
    const { start, trialEnd, anchor } = timing(input, now, timeZone, first);
    const recurring = first.price.recurring!;
    const fields: SubscriptionFields = {
      customer_id: customer.id,
      currency: first.price.currency,
      status: start > now ? 'scheduled' : trialEnd ? 'trialing' : 'active',
      interval: recurring.interval,
      interval_count: recurring.intervalCount,
      time_zone: timeZone,
      billing_cycle_anchor: anchor,
      start_at: start,
      trial_start: trialEnd && start <= now ? start : null,
      trial_end: trialEnd,
      trial_will_end_sent: false,
      current_period_start: null,
      current_period_end: null,
      proration_behavior: input.prorationBehavior ?? 'create_prorations',
      cancel_at_period_end: false,
      cancel_at: null,
      cancel_prorate: false,
      cancel_invoice_now: true,
      canceled_at: null,
      ended_at: null,
      pause_behavior: null,
      pause_resumes_at: null,
      latest_invoice_id: null,
      next_action_at: null,
      standing_changed: false,
      test_clock_id: customer.test_clock_id,
      days_until_due: input.daysUntilDue ?? null,
      default_tax_rates: defaults,
      auto_send: input.autoSend ?? false,
      description: input.description ?? null,
      metadata: input.metadata ?? {},
    };
    if (fields.status === 'trialing') {
      fields.current_period_start = start;
      fields.current_period_end = trialEnd;
    }
    fields.next_action_at = nextActionAt({ ...fields } as SubscriptionRow);
    const id = newId('sub');
    let row = await insertSubscription(tx, scope, id, fields);
    await replaceItems(tx, scope, id, items);
    if (row.status === 'active') {
      const options = await stepOptions(tx, scope, now, billing);
      row = await startPeriod(uow, row, start, 'subscription_create', options);
    }
    const subscription = await shown(tx, scope, row);
    uow.event('subscription.created', subscription);
    return subscription;
  });
}
