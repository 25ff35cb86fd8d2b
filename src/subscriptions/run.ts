// The billing run: everything a subscription's calendar makes due — starts, trial warnings and
// ends, period boundaries with their invoices, cancellations, pauses ending — and then the
// work on the invoices it made (issue after the grace period; send, void or mark
// uncollectible). The worker runs it on real time every few seconds; a test clock's advance
// runs it at each instant of the clock that falls due, through this same code.
//
// Exactly once, whatever runs it and however often: each step locks the subscription row and
// re-reads it (a second worker waits, then finds nothing due); each invoice is claimed in the
// ledger under (subscription, period, reason) in the transaction that makes it; each step of
// an invoice's work is recorded in the transaction of the move it makes.
import { fixedClock, type Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import { unitOfWork, writtenValue, type UnitOfWork } from '../db/unit-of-work.ts';
import { EinvoiceIncompleteError, ResourceMissingError, StateInvalidError } from '../errors.ts';
import type { HostedLinks } from '../hosted/links.ts';
import { issueInvoice, sendInvoice, transitionInvoice } from '../invoices/service.ts';
import { operator } from '../tenancy.ts';
import {
  selectDueSubscriptions,
  selectDueWork,
  setLedgerWork,
  type ClockTarget,
  type DueRow,
  type InvoiceWork,
  type WorkRow,
} from './ledger-store.ts';
import { shown } from './reading.ts';
import { saveWithNextAction, stepSubscription } from './run-steps.ts';
import { stepOptions, type Billing } from './periods.ts';
import { hasOverdueInvoice, selectStandingChanged } from './standing-store.ts';
import { selectSubscription } from './store.ts';

export interface RunDeps extends Billing {
  db: Db;
  clock: Clock;
  links: HostedLinks;
}

/** One test clock's subscriptions, or (null) those on real time. */
export type RunTarget = ClockTarget;

const BATCH = 50;

/** Everything due at `now` for the target; the number of steps taken. */
export async function runDue(deps: RunDeps, target: RunTarget, now: Date): Promise<number> {
  let steps = 0;
  for (;;) {
    const due = await selectDueSubscriptions(deps.db, target, now, BATCH);
    let moved = 0;
    for (const row of due) moved += await catchUp(deps, row, now);
    steps += moved;
    // A full batch that moved nothing is another worker's: leave it to that worker.
    if (due.length < BATCH || moved === 0) break;
  }
  for (;;) {
    const marked = await selectStandingChanged(deps.db, target, BATCH);
    for (const row of marked) steps += await settleStanding(deps.db, row);
    if (marked.length < BATCH) break;
  }
  for (;;) {
    const work = await selectDueWork(deps.db, target, now, BATCH);
    for (const row of work) steps += await doWork(deps, row, now);
    if (work.length < BATCH) break;
  }
  return steps;
}

/** Steps one subscription until nothing is due at `now`, each step its own transaction. */
async function catchUp(deps: RunDeps, due: DueRow, now: Date): Promise<number> {
  const { db } = deps;
  const scope = { tenantId: due.tenant_id, environment: due.environment };
  for (let steps = 0; ; steps++) {
    const written = await unitOfWork(
      db,
      { actor: operator(due.tenant_id, due.environment) },
      async (uow) => {
        const row = await selectSubscription(uow.tx, scope, due.id, { forUpdate: true });
        if (!row) return false;
        const options = await stepOptions(uow.tx, scope, now, deps);
        return (await stepSubscription(uow, row, options)) !== null;
      },
    );
    if (!writtenValue(written)) return steps;
  }
}

/** Sets past_due or active as the subscription's invoices now say (its mark cleared). */
async function settleStanding(db: Db, marked: DueRow): Promise<number> {
  const scope = { tenantId: marked.tenant_id, environment: marked.environment };
  await unitOfWork(db, { actor: operator(marked.tenant_id, marked.environment) }, async (uow) => {
    const row = await selectSubscription(uow.tx, scope, marked.id, { forUpdate: true });
    if (!row?.standing_changed) return;
    const standing = row.status === 'active' || row.status === 'past_due';
    const overdue = standing && (await hasOverdueInvoice(uow.tx, scope, row.id));
    const status = standing ? (overdue ? 'past_due' : 'active') : row.status;
    const saved = await saveWithNextAction(uow, row, { status, standing_changed: false });
    if (status === row.status) return;
    const shownRow = await shown(uow.tx, scope, saved);
    uow.event(status === 'past_due' ? 'subscription.past_due' : 'subscription.updated', shownRow);
  });
  return 1;
}

/** Does one step of an invoice's work; 1 when it was done (by this call or found done). */
async function doWork(deps: RunDeps, work: WorkRow, now: Date): Promise<number> {
  const { db, documents, links } = deps;
  const scope = { tenantId: work.tenant_id, environment: work.environment };
  const request = { actor: operator(work.tenant_id, work.environment) };
  const clock = fixedClock(now);
  const moveOn = (next: InvoiceWork | null) => (uow: UnitOfWork) =>
    setLedgerWork(uow.tx, uow.actor, work, next === null ? null : { work: next, at: now });
  try {
    if (work.work === 'issue') {
      // What follows: the pause's rule for an invoice made while paused, else autoSend.
      const sub = await selectSubscription(db, scope, work.subscription_id);
      const next = work.after_issue ?? (sub?.auto_send ? 'send' : null);
      await issueInvoice(db, clock, documents, links, request, work.invoice_id, moveOn(next));
    } else if (work.work === 'send') {
      await sendInvoice(db, clock, documents, links, request, work.invoice_id, moveOn(null));
    } else {
      await transitionInvoice(db, clock, links, request, work.invoice_id, work.work, moveOn(null));
    }
  } catch (error) {
    // The invoice was moved by someone else (issued, deleted or voided through the API), or
    // cannot be issued as it is (einvoiceRequired): the run leaves it as it is.
    if (
      error instanceof StateInvalidError ||
      error instanceof ResourceMissingError ||
      error instanceof EinvoiceIncompleteError
    ) {
      await unitOfWork(db, request, moveOn(null));
    } else {
      throw error;
    }
  }
  return 1;
}
