// The run's subscriptions in batches: one unit of work claims up to BATCH due subscriptions of
// one tenant (locked, skipping those another worker holds) and steps each of them, by the very
// code a single step runs (run-steps.ts), until nothing is due at `now`; everything commits at
// once, with the batch's events in one outcome statement. Each invoice is still claimed in the
// ledger under (subscription, period, reason) by the transaction that makes it, so a batch
// rolled back by a crash leaves nothing behind and a batch taken up again makes each invoice
// once.
//
// One failure rolls the whole batch back; its subscriptions are then stepped one by one, each in
// a unit of work of its own (`stepAlone`), so that only the one that fails stays behind.
import type { Db } from '../db/pool.ts';
import { unitOfWork, writtenValue, type UnitOfWork } from '../db/unit-of-work.ts';
import { operator } from '../tenancy.ts';
import { BatchReads } from './batch-reads.ts';
import { claimDueSubscriptions, type BatchSource } from './due-store.ts';
import { stepOptions, type Billing, type StepOptions } from './periods.ts';
import { stepSubscription } from './run-steps.ts';
import { selectSubscription, type SubscriptionRow } from './store.ts';

/** Subscriptions per transaction: large enough that a commit's cost is shared, small enough
 * that a failure's retry one by one and the rows held locked stay short. */
export const BATCH = 100;

/** Steps the subscription until nothing is due at `options.now`; the number of steps. */
async function stepUntilDone(
  uow: UnitOfWork,
  row: SubscriptionRow,
  options: StepOptions,
): Promise<number> {
  let steps = 0;
  for (let next = await stepSubscription(uow, row, options); next !== null; steps++) {
    next = await stepSubscription(uow, next, options);
  }
  return steps;
}

/**
 * Waits for every one of `works` (run on one transaction's connection, so none may still be
 * sending statements when the transaction ends), then fails with the first failure, if any.
 */
export async function allOrFirstFailure<T>(works: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(works);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

/** What a batch came to: rows claimed, steps or works done, and a failure that stopped one. */
export interface BatchOutcome {
  claimed: number;
  done: number;
  failure?: unknown;
}

/**
 * One batch: rows of the source claimed by `claim` and done together by `doAll` in one unit of
 * work (its count is what was done); should that fail, each claimed row is done again alone by
 * `alone`, so one bad row costs its batch only a retry. Claimed 0: nothing is due that another
 * worker does not hold.
 */
export async function inBatch<Row>(
  db: Db,
  source: BatchSource,
  claim: (uow: UnitOfWork) => Promise<Row[]>,
  doAll: (uow: UnitOfWork, rows: Row[]) => Promise<number>,
  alone: (row: Row) => Promise<number>,
): Promise<BatchOutcome> {
  const { scope } = source;
  let claimed: Row[] = [];
  try {
    const written = await unitOfWork(
      db,
      { actor: operator(scope.tenantId, scope.environment) },
      async (uow) => {
        claimed = await claim(uow);
        return claimed.length === 0 ? 0 : doAll(uow, claimed);
      },
    );
    return { claimed: claimed.length, done: writtenValue(written) };
  } catch (error) {
    if (claimed.length === 0) throw error;
    return oneByOne(claimed, alone);
  }
}

/** Claims and steps one batch of the source's due subscriptions. */
export function stepBatch(
  deps: Billing & { db: Db },
  source: BatchSource,
  now: Date,
): Promise<BatchOutcome> {
  return inBatch(
    deps.db,
    source,
    (uow) => claimDueSubscriptions(uow.tx, source, now, BATCH),
    async (uow, claimed) => {
      // What every step would read again, read once for the batch (./batch-reads.ts).
      const reads = await BatchReads.read(uow.tx, source.scope, claimed);
      const { settings } = reads.invoices.settings;
      const options = { ...deps, now, graceMinutes: settings.invoice_grace_minutes, reads };
      // Their statements are pipelined on the transaction's one connection.
      const steps = await allOrFirstFailure(claimed.map((row) => stepUntilDone(uow, row, options)));
      return steps.reduce((a, b) => a + b, 0);
    },
    (row) => stepAlone(deps, row, now),
  );
}

/** Does each row alone, in turn; the steps done and the first failure. */
export async function oneByOne<Row>(
  rows: readonly Row[],
  alone: (row: Row) => Promise<number>,
): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { claimed: rows.length, done: 0 };
  for (const row of rows) {
    try {
      outcome.done += await alone(row);
    } catch (error) {
      outcome.failure ??= error;
    }
  }
  return outcome;
}

/** Steps one subscription until nothing is due at `now`, each step its own transaction. */
export async function stepAlone(
  deps: Billing & { db: Db },
  due: Pick<SubscriptionRow, 'tenant_id' | 'environment' | 'id'>,
  now: Date,
): Promise<number> {
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
