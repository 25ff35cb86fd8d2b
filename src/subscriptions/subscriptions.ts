// The subscriptions service as the composition root makes it (src/composition.ts): the rules
// bound once to the database and the clock, for routes, the worker and the CLI.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { WriteRequest } from '../db/unit-of-work.ts';
import type { PageRequest } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import { previewChange, updateSubscription } from './changes.ts';
import { cancelSubscription, pauseSubscription, resumeSubscription } from './ending.ts';
import { getSubscription, listSubscriptions, type SubscriptionFilters } from './reading.ts';
import { selectRunLag } from './due-store.ts';
import { runDue, type RunDeps, type RunTarget } from './run.ts';
import type {
  SubscriptionCancel,
  SubscriptionCreate,
  SubscriptionPause,
  SubscriptionUpdate,
} from './schemas.ts';
import { createSubscription } from './service.ts';
import { currentUsage, upcomingInvoice } from './upcoming.ts';

export function createSubscriptions(deps: RunDeps) {
  const { db, clock }: { db: Db; clock: Clock } = deps;
  return {
    create: (write: WriteRequest, input: SubscriptionCreate) =>
      createSubscription(db, clock, deps, write, input),
    get: (scope: TenantScope, id: string) => getSubscription(db, scope, id),
    list: (scope: TenantScope, filters: SubscriptionFilters, page: PageRequest) =>
      listSubscriptions(db, scope, filters, page),
    update: (write: WriteRequest, id: string, input: SubscriptionUpdate) =>
      updateSubscription(db, clock, deps, write, id, input),
    previewChange: (scope: TenantScope, id: string, input: SubscriptionUpdate) =>
      previewChange(db, clock, scope, id, input),
    upcoming: (scope: TenantScope, id: string) => upcomingInvoice(db, clock, deps, scope, id),
    usage: (scope: TenantScope, id: string) => currentUsage(db, clock, deps, scope, id),
    cancel: (write: WriteRequest, id: string, input: SubscriptionCancel) =>
      cancelSubscription(db, clock, deps, write, id, input),
    pause: (write: WriteRequest, id: string, input: SubscriptionPause) =>
      pauseSubscription(db, clock, write, id, input),
    resume: (write: WriteRequest, id: string) => resumeSubscription(db, clock, write, id),
    /** The billing run: what is due now on real time (target null), or on a test clock. */
    runDue: (target: RunTarget, now: Date = clock.now()) => runDue(deps, target, now),
    /** Seconds the oldest thing the run has due has waited (/metrics). */
    runLag: () => selectRunLag(db, clock.now()),
    /** Whether this process's run is working through batches now. */
    runBusy: () => deps.activity?.busy ?? false,
  };
}

export type Subscriptions = ReturnType<typeof createSubscriptions>;
export { RunActivity } from './run.ts';
