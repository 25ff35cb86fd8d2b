// The billing run: everything a subscription's calendar makes due — starts, trial warnings and
// ends, period boundaries with their invoices, cancellations, pauses ending — and then the
// work on the invoices it made (issue after the grace period; send, void or mark
// uncollectible). The worker runs it on real time every few seconds; a test clock's advance
// runs it at each instant of the clock that falls due, through this same code.
//
// It works in batches of one tenant's rows, each a unit of work (./run-boundaries.ts,
// ./run-invoices.ts; docs/billing-run.md). Exactly once, whatever runs it and however often:
// a batch claims its rows locked, skipping those another worker holds, and steps each locked
// row as it is; each invoice is claimed in the ledger under (subscription, period, reason) in
// the transaction that makes it; each step of an invoice's work is recorded in the transaction
// of the move it makes.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import { unitOfWork } from '../db/unit-of-work.ts';
import type { HostedLinks } from '../hosted/links.ts';
import { operator } from '../tenancy.ts';
import { selectDueTenants, type BatchSource } from './due-store.ts';
import type { ClockTarget, DueRow } from './ledger-store.ts';
import { shown } from './reading.ts';
import { stepBatch, type BatchOutcome } from './run-boundaries.ts';
import { workBatch } from './run-invoices.ts';
import { saveWithNextAction } from './run-steps.ts';
import type { Billing } from './periods.ts';
import { hasOverdueInvoice, selectStandingChanged } from './standing-store.ts';
import { selectSubscription } from './store.ts';

export interface RunDeps extends Billing {
  db: Db;
  clock: Clock;
  links: HostedLinks;
  /** Where this process's run says it is busy (the worker's mail and renders yield to it). */
  activity?: RunActivity;
}

/** Whether a run of this process is working through batches (from a batch claimed to none). */
export class RunActivity {
  #loops = 0;

  get busy(): boolean {
    return this.#loops > 0;
  }

  enter(): void {
    this.#loops++;
  }

  leave(): void {
    this.#loops--;
  }
}

/** One test clock's subscriptions, or (null) those on real time. */
export type RunTarget = ClockTarget;

/** Subscriptions whose standing is settled per read. */
const STANDING_BATCH = 50;
/**
 * Batches in flight at once in one process, each a transaction on a connection of its own: one.
 * Two kept PostgreSQL and this process busy at the same time (one batch's statements running
 * while the other's results were computed) and issued 20,008 invoices 10–15 % sooner beside the
 * mixed load, but left the other tenants' requests too little of two cores: their p99 during
 * the run was 84–94 ms with two, 30–40 ms with one (bench/README.md, "One batch at a time").
 */
const WORKERS = 1;
/** Tenants with due rows looked at per pass on real time. */
const TENANTS_PER_PASS = 1000;

/** Everything due at `now` for the target; the number of steps taken. */
export async function runDue(deps: RunDeps, target: RunTarget, now: Date): Promise<number> {
  let steps = 0;
  const sources = async (): Promise<BatchSource[]> =>
    target === null
      ? (await selectDueTenants(deps.db, now, TENANTS_PER_PASS)).map((scope) => ({
          scope,
          clockId: null,
        }))
      : [{ scope: target.scope, clockId: target.id }];
  for (const source of await sources()) {
    steps += await inWorkers(() => stepBatch(deps, source, now), deps.activity);
  }
  for (;;) {
    const marked = await selectStandingChanged(deps.db, target, STANDING_BATCH);
    for (const row of marked) steps += await settleStanding(deps.db, row);
    if (marked.length < STANDING_BATCH) break;
  }
  for (const source of await sources()) {
    steps += await inWorkers(() => workBatch(deps, source, now), deps.activity);
  }
  return steps;
}

/**
 * Runs `batch` in WORKERS loops at once until each finds nothing to claim (what is left is
 * held by another worker, which does it) or a batch with a failure got nothing done (what
 * fails stays due, for the next pass). The first failure is thrown once every loop has ended;
 * else the number of steps done.
 */
async function inWorkers(
  batch: () => Promise<BatchOutcome>,
  activity: RunActivity | undefined,
): Promise<number> {
  let failure: unknown = undefined;
  let done = 0;
  const loop = async () => {
    let busy = false;
    try {
      for (;;) {
        const outcome = await batch().catch((error: unknown) => ({
          claimed: 0,
          done: 0,
          failure: error,
        }));
        done += outcome.done;
        if (outcome.failure !== undefined) failure ??= outcome.failure;
        if (outcome.claimed === 0 || (outcome.failure !== undefined && outcome.done === 0)) return;
        // A batch claimed: more may follow, and what can wait waits.
        if (!busy) activity?.enter();
        busy = true;
      }
    } finally {
      if (busy) activity?.leave();
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, loop));
  if (failure !== undefined) throw failure;
  return done;
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
