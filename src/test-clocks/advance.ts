// Running a test clock's advance: from the clock's time to its target, instant by instant —
// the earliest thing any of its customers' subscriptions or their invoices has due — the clock
// stands at that instant and the subscription run (src/subscriptions/run.ts) does what is due
// then, exactly as the worker would at that time. Then the clock stands at the target, ready.
//
// Safe to run twice at once (a worker going on with an advance a crash cut short, while the
// server that started it is still at it): every step of the run is exactly once on its own,
// and the clock only moves forward and is made ready once, under its row lock.
import { utcDateOf } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import { nextDunningAt, runDunning } from '../dunning/service.ts';
import { unitOfWork } from '../db/unit-of-work.ts';
import { selectClockNextDue } from '../subscriptions/ledger-store.ts';
import { runDue, type RunDeps } from '../subscriptions/run.ts';
import { operator, type TenantScope } from '../tenancy.ts';
import { testClockFromRow } from './service.ts';
import { moveTestClock, selectAdvancingClocks, selectTestClock } from './store.ts';

/** Runs the clock's advance to its end; returns once the clock is ready (or gone). */
export async function runAdvance(deps: RunDeps, scope: TenantScope, id: string): Promise<void> {
  const { db } = deps;
  const target = { scope, id };
  for (;;) {
    const clock = await selectTestClock(db, scope, id);
    if (!clock || clock.status !== 'advancing') return;
    const to = clock.advance_to!;
    const due = earliest(
      await selectClockNextDue(db, scope, id),
      await nextDunningAt(db, scope, id),
    );
    if (due === null || due > to) {
      // Nothing falls due before the target; what does not wait for a time (a subscription
      // whose invoice was paid meanwhile is active again) is settled at it.
      await runDue(deps, target, to);
      await finish(db, scope, id, to);
      return;
    }
    // The clock stands at the instant due (never back: a step already run may lie behind it).
    const at = due > clock.frozen_time ? due : clock.frozen_time;
    if (at > clock.frozen_time) await moveForward(db, scope, id, at, to);
    await runDue(deps, target, at);
    // Overdue invoices and reminders at the clock's date; then the subscriptions whose
    // invoices that made overdue are past_due (the next pass of the run).
    const dunning = await runDunning(db, utcDateOf(at), target);
    if (dunning.overdue > 0) await runDue(deps, target, at);
  }
}

function earliest(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
}

async function moveForward(db: Db, scope: TenantScope, id: string, at: Date, to: Date) {
  await unitOfWork(db, { actor: operator(scope.tenantId, scope.environment) }, async (uow) => {
    const row = await selectTestClock(uow.tx, scope, id, { forUpdate: true });
    if (row?.status === 'advancing' && row.frozen_time < at) {
      await moveTestClock(uow.tx, scope, id, at, to);
    }
  });
}

async function finish(db: Db, scope: TenantScope, id: string, to: Date) {
  await unitOfWork(db, { actor: operator(scope.tenantId, scope.environment) }, async (uow) => {
    const row = await selectTestClock(uow.tx, scope, id, { forUpdate: true });
    if (row?.status !== 'advancing' || row.advance_to!.getTime() !== to.getTime()) return;
    const ready = await moveTestClock(uow.tx, scope, id, to, null);
    uow.event('test_clock.ready', testClockFromRow(ready));
  });
}

/**
 * The advances under way in this process, so that shutdown waits for the step in progress and
 * the same clock is not run twice by one process.
 */
export class TestClockAdvances {
  readonly #running = new Map<string, Promise<void>>();
  readonly #deps: RunDeps;
  #onError: (error: unknown) => void = (error) => console.error(error);

  constructor(deps: RunDeps) {
    this.#deps = deps;
  }

  /** Where a failed advance is reported (the process's logger, once it has one). */
  reportErrorsTo(onError: (error: unknown) => void): void {
    this.#onError = onError;
  }

  /** Runs the clock's advance in the background (once per process at a time). */
  start(scope: TenantScope, id: string): void {
    const key = `${scope.tenantId}/${id}`;
    if (this.#running.has(key)) return;
    const run = runAdvance(this.#deps, scope, id)
      .catch((error: unknown) => this.#onError(error))
      .finally(() => this.#running.delete(key));
    this.#running.set(key, run);
  }

  /**
   * Goes on with advances that no process has moved for `idleSeconds` (a crash cut them short;
   * 0 at start, when no advance of this process can be under way).
   */
  async resumeStalled(idleSeconds: number): Promise<void> {
    for (const row of await selectAdvancingClocks(this.#deps.db, idleSeconds, 20)) {
      this.start({ tenantId: row.tenant_id, environment: row.environment }, row.id);
    }
  }

  /** Resolves when every advance this process runs has come to an end. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }
}
