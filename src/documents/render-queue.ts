// The document worker: renders the documents of what was issued (queued by the outcome
// statement, ./renders-store.ts) soon after the issue is answered, so that the first reader,
// the e-mail and the hosted page find them stored. A reader that comes first renders them
// itself; renders of one subject are serialised (./records.ts), so either way once.
import type { Clock } from '../clock.ts';
import type { Db, Queryable } from '../db/pool.ts';
import { Poller } from '../jobs/poller.ts';
import type { DocumentModel } from './model.ts';
import { renderOnce } from './records.ts';
import type { RenderPool } from './render-pool.ts';
import { claimDueRenders, type QueuedRender, type RenderKind } from './renders-store.ts';
import type { TenantScope } from '../tenancy.ts';

/** A subject's document model, from the data it froze (given by the composition root). */
export type ModelOf = (
  on: Queryable,
  kind: RenderKind,
  scope: TenantScope,
  id: string,
) => Promise<DocumentModel>;

export interface RenderQueueOptions {
  renderer: RenderPool;
  modelOf: ModelOf;
  clock: Clock;
  onError?: (error: unknown, context: string) => void;
  /**
   * Renders in flight at once: four per render thread. A render spends most of its time
   * waiting for the database (its model's reads, a pooled connection, its transaction), not on
   * its thread; with one in flight per thread, the queue fell behind the mixed benchmark's 45
   * issues a second (about one in five rendered during the measurement). The render pool runs
   * them a thread at a time, so a reader's render or preview waits behind at most four.
   */
  concurrency?: number;
  /** While this says true, no render is claimed (Poller's `yieldTo`); readers still render. */
  yieldTo?: () => boolean;
  /** The first lease of a claimed render; doubled with each attempt (a failing render). */
  leaseSeconds?: number;
}

export class RenderQueue {
  readonly #poller: Poller<QueuedRender>;

  constructor(db: Db, options: RenderQueueOptions) {
    const { renderer, modelOf } = options;
    this.#poller = new Poller({
      name: 'document renders',
      clock: options.clock,
      onError: options.onError,
      yieldTo: options.yieldTo,
      concurrency: options.concurrency ?? 4 * renderer.threads,
      claim: (limit) => claimDueRenders(db, limit, options.leaseSeconds ?? 30),
      handle: async (item) => {
        const scope: TenantScope = { tenantId: item.tenant_id, environment: item.environment };
        const model = (on: Queryable) => modelOf(on, item.kind, scope, item.subject_id);
        // Another worker or a reader rendering it now: theirs is stored, nothing to do.
        await renderOnce(db, renderer, scope, item.subject_id, model, false);
      },
    });
  }

  start(): void {
    this.#poller.start();
  }

  /** Renders what is queued now (an issue just committed) rather than at the next poll. */
  poke(): void {
    this.#poller.poke();
  }

  stop(): Promise<void> {
    return this.#poller.stop();
  }
}
