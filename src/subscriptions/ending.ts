// Cancel, pause and resume (API.md part D). A cancellation at the period's end or at a later
// instant is recorded and done by the run when it falls due; "now" ends the subscription in
// the request's transaction, with its last invoice.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { WriteRequest, Written } from '../db/unit-of-work.ts';
import { ParameterInvalidError } from '../errors.ts';
import { stepOptions, type Billing } from './periods.ts';
import { moveSubscription } from './moves.ts';
import { endSubscription } from './run-steps.ts';
import type { Subscription, SubscriptionCancel, SubscriptionPause } from './schemas.ts';
import type { SubscriptionRow } from './store.ts';

function future(value: string | undefined, param: string, now: Date): Date | null {
  if (value === undefined) return null;
  const at = new Date(value);
  if (at < now) throw new ParameterInvalidError(param, `${param} is in the past.`);
  return at;
}

export function cancelSubscription(
  db: Db,
  clock: Clock,
  billing: Billing,
  request: WriteRequest,
  id: string,
  input: SubscriptionCancel,
): Promise<Written<Subscription>> {
  const allowed = (row: SubscriptionRow) =>
    row.status === 'canceled' ? `Subscription ${id} is canceled already.` : null;
  return moveSubscription(db, clock, request, id, allowed, async (row, now, uow) => {
    const terms = {
      cancel_prorate: input.prorate ?? false,
      cancel_invoice_now: input.invoiceNow ?? true,
      canceled_at: now,
    };
    const at = input.at ?? 'period_end';
    if (at === 'now') {
      const options = await stepOptions(uow.tx, uow.actor, now, billing);
      return endSubscription(uow, { ...row, ...terms }, now, options);
    }
    const fields =
      at === 'period_end'
        ? { ...terms, cancel_at_period_end: true }
        : { ...terms, cancel_at: future(at, 'at', now) };
    return { fields, event: 'subscription.updated' };
  });
}

export function pauseSubscription(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
  input: SubscriptionPause,
): Promise<Written<Subscription>> {
  const allowed = (row: SubscriptionRow) =>
    row.status === 'active' || row.status === 'past_due'
      ? null
      : `Subscription ${id} is ${row.status}; only an active or past-due one can be paused.`;
  return moveSubscription(db, clock, request, id, allowed, async (_row, now) => {
    const resumesAt = future(input.resumesAt, 'resumesAt', now);
    const fields = {
      status: 'paused' as const,
      pause_behavior: input.behavior,
      pause_resumes_at: resumesAt,
    };
    return { fields, event: 'subscription.paused' };
  });
}

export function resumeSubscription(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
): Promise<Written<Subscription>> {
  const allowed = (row: SubscriptionRow) =>
    row.status === 'paused' ? null : `Subscription ${id} is ${row.status}, not paused.`;
  return moveSubscription(db, clock, request, id, allowed, async () => ({
    fields: { status: 'active', pause_behavior: null, pause_resumes_at: null },
    event: 'subscription.resumed',
  }));
}
