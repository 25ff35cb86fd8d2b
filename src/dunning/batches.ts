// The dunning jobs work tenant by tenant in bounded units of work, so that no transaction holds
// a large tenant's rows for long and a crash loses at most one batch (which the next run takes).
import type { Db } from '../db/pool.ts';
import { unitOfWork, writtenValue, type UnitOfWork } from '../db/unit-of-work.ts';
import { operator } from '../keys/service.ts';
import type { Environment, TenantScope } from '../tenancy.ts';

/** Dunning of one test clock's customers, at its time; null: of every customer on real time. */
export type DunningClock = { scope: TenantScope; id: string } | null;

/**
 * Runs `batch` for each scope in one unit of work after another, as the operator, until a
 * batch takes fewer than `size`; returns how many all batches took.
 */
export async function inBatches<S extends { tenantId: string; environment: Environment }>(
  db: Db,
  scopes: readonly S[],
  size: number,
  batch: (uow: UnitOfWork, scope: S) => Promise<number>,
): Promise<number> {
  let taken = 0;
  for (const scope of scopes) {
    const actor = operator(scope.tenantId, scope.environment);
    for (;;) {
      const count = writtenValue(await unitOfWork(db, { actor }, (uow) => batch(uow, scope)));
      taken += count;
      if (count < size) break;
    }
  }
  return taken;
}
