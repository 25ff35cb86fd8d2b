// Cancel, pause and resume (API.md part D). A cancellation at the period's end or at a later
// instant is recorded and done by the run when it falls due; "now" ends the subscription in
// the request's transaction, with its last invoice.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { IssuedDocuments } from '../documents/service.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { ParameterInvalidError, StateInvalidError } from '../errors.ts';
import { getSettingsRow } from '../settings/service.ts';
import { timeOn } from '../test-clocks/time.ts';
import { getSubscriptionRow, shown } from './reading.ts';
import { endSubscription, saveWithNextAction } from './run-steps.ts';
import type { Subscription, SubscriptionCancel, SubscriptionPause } from './schemas.ts';

export function cancelSubscription(
  db: Db,
  clock: Clock,
  documents: IssuedDocuments,
  request: WriteRequest,
  id: string,
  input: SubscriptionCancel,
): Promise<Written<Subscription>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await getSubscriptionRow(tx, scope, id, { forUpdate: true });
    if (row.status === 'canceled') {
      throw new StateInvalidError(`Subscription ${id} is canceled already.`);
    }
    const now = await timeOn(tx, scope, row.test_clock_id, clock);
    const terms = {
      cancel_prorate: input.prorate ?? false,
      cancel_invoice_now: input.invoiceNow ?? true,
      canceled_at: now,
    };
    const at = input.at ?? 'period_end';
    if (at === 'now') {
      const settings = await getSettingsRow(tx, scope);
      const options = { now, graceMinutes: settings.invoice_grace_minutes, documents };
      const ended = await endSubscription(uow, { ...row, ...terms }, now, options);
      return shown(tx, scope, ended);
    }
    let saved;
    if (at === 'period_end') {
      saved = await saveWithNextAction(uow, row, { ...terms, cancel_at_period_end: true });
    } else {
      const instant = new Date(at);
      if (instant < now) {
        throw new ParameterInvalidError('at', 'at is in the past; give now or a later instant.');
      }
      saved = await saveWithNextAction(uow, row, { ...terms, cancel_at: instant });
    }
    const subscription = await shown(tx, scope, saved);
    uow.event('subscription.updated', subscription);
    return subscription;
  });
}

export function pauseSubscription(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
  input: SubscriptionPause,
): Promise<Written<Subscription>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await getSubscriptionRow(tx, scope, id, { forUpdate: true });
    if (row.status !== 'active' && row.status !== 'past_due') {
      throw new StateInvalidError(
        `Subscription ${id} is ${row.status}; only an active or past-due one can be paused.`,
      );
    }
    const now = await timeOn(tx, scope, row.test_clock_id, clock);
    const resumesAt = input.resumesAt === undefined ? null : new Date(input.resumesAt);
    if (resumesAt !== null && resumesAt <= now) {
      throw new ParameterInvalidError('resumesAt', 'resumesAt must be in the future.');
    }
    const saved = await saveWithNextAction(uow, row, {
      status: 'paused',
      pause_behavior: input.behavior,
      pause_resumes_at: resumesAt,
    });
    const subscription = await shown(tx, scope, saved);
    uow.event('subscription.paused', subscription);
    return subscription;
  });
}

export function resumeSubscription(
  db: Db,
  request: WriteRequest,
  id: string,
): Promise<Written<Subscription>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await getSubscriptionRow(tx, scope, id, { forUpdate: true });
    if (row.status !== 'paused') {
      throw new StateInvalidError(`Subscription ${id} is ${row.status}, not paused.`);
    }
    const saved = await saveWithNextAction(uow, row, {
      status: 'active',
      pause_behavior: null,
      pause_resumes_at: null,
    });
    const subscription = await shown(tx, scope, saved);
    uow.event('subscription.resumed', subscription);
    return subscription;
  });
}
