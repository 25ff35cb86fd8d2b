// One move of a subscription through the API (a change, cancel, pause, resume): in one unit of
// work, on its row locked, at the time its clock says, with the event the move records.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import {
  unitOfWork,
  type UnitOfWork,
  type WriteRequest,
  type Written,
} from '../db/unit-of-work.ts';
import { StateInvalidError } from '../errors.ts';
import { timeOn } from '../test-clocks/time.ts';
import { getSubscriptionRow, shown } from './reading.ts';
import { saveWithNextAction } from './run-steps.ts';
import type { Subscription } from './schemas.ts';
import type { SubscriptionFields, SubscriptionRow } from './store.ts';

type EventType = 'subscription.updated' | 'subscription.paused' | 'subscription.resumed';

/**
 * One move of a subscription in a unit of work: the row locked, refused unless `allowed`, the
 * time its clock says, and what `move` makes of it — fields to save with their event, or the
 * row it saved itself (with its events).
 */
export function moveSubscription(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
  allowed: (row: SubscriptionRow) => string | null,
  move: (
    row: SubscriptionRow,
    now: Date,
    uow: UnitOfWork,
  ) => Promise<{ fields: Partial<SubscriptionFields>; event: EventType } | SubscriptionRow>,
): Promise<Written<Subscription>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await getSubscriptionRow(tx, scope, id, { forUpdate: true });
    const refusal = allowed(row);
    if (refusal !== null) throw new StateInvalidError(refusal);
    const moved = await move(row, await timeOn(tx, scope, row.test_clock_id, clock), uow);
    if ('id' in moved) return shown(tx, scope, moved);
    const subscription = await shown(tx, scope, await saveWithNextAction(uow, row, moved.fields));
    uow.event(moved.event, subscription);
    return subscription;
  });
}
