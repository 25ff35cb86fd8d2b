// Expensive requests take turns, per tenant: one tenant's flood of PDF previews, e-invoices,
// reports or pages of 100 must not hold every render thread and pooled connection while
// another tenant waits behind it (API.md part C; docs/api.md, "Expensive requests").
//
// A route says it is expensive in its config (`expensive: true`, or `'large-page'` for a list,
// expensive when its `limit` is above the default page), never by its URL. Such a request runs
// when its tenant has fewer than EXPENSIVE_PER_TENANT (2) running and the instance fewer than
// EXPENSIVE_TOTAL (half the database pool); otherwise it waits in its tenant's queue, and each
// freed place goes to the next tenant in turn (round robin) that has one waiting and is under
// its own bound. A tenant with EXPENSIVE_QUEUE_PER_TENANT (16) already waiting is answered
// 429 rate_limited with Retry-After: the wait is bounded, and a client with a few connections
// never sees it. Cheap requests (whoami, a read by id, a write) never wait here.
//
// The place is held until the response has been sent or its connection closed (the reply's
// `close`), so the serialising and sending count too; a request whose client left while it
// waited gives up its turn.
//
// What the turns share out is the render threads and the pool, not the CPU: a tenant alone
// with expensive work still gets all of it, and another tenant's cheap reads wait for the event
// loop and the cores as before. Measured with 8 connections flooding previews, e-invoices and
// pages of 100: the other tenant's own PDF preview took 1.3 s instead of 2.6 s; its whoami's
// p99 moved with the event loop's delay either way (docs/api.md, "Expensive requests").
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { DEFAULT_LIMIT } from '../paging.ts';
import { RateLimitedError, RequestTimeoutError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route renders, exports or reads much: it takes turns with other tenants'
     * (`'large-page'`: a list, only when its `limit` is above the default page size).
     */
    expensive?: true | 'large-page';
  }
}

export interface ExpensiveLimits {
  /** Expensive requests one tenant may have running at once. */
  perTenant: number;
  /** Expensive requests running at once in the instance, all tenants together. */
  total: number;
  /** A tenant's requests waiting for their turn; one more is refused (429). */
  queuePerTenant: number;
}

/** Seconds a refused client is asked to wait: a turn lasts a render or a page, well under one. */
const RETRY_AFTER_SECONDS = 1;

interface Waiter {
  start: (release: () => void) => void;
}

export class ExpensiveRequests {
  readonly limits: ExpensiveLimits;
  private readonly running = new Map<string, number>();
  private runningTotal = 0;
  /** Tenants with requests waiting, in the order of their turn (a Map keeps insertion order). */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(limits: ExpensiveLimits) {
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} ${value}`);
    }
    this.limits = limits;
  }

  /**
   * Waits for the tenant's turn; resolves to the function that gives the place back (call it
   * once). Throws RateLimitedError at once when the tenant's queue is full, and
   * RequestTimeoutError when `signal` aborts while the request waits.
   */
  admit(tenant: string, signal?: AbortSignal): Promise<() => void> {
    // Free places are given out as they free up (dispatch), so none waits that may start now.
    if (!this.queues.has(tenant) && this.mayStart(tenant)) {
      return Promise.resolve(this.start(tenant));
    }
    const queue = this.queues.get(tenant) ?? [];
    if (queue.length >= this.limits.queuePerTenant) {
      return Promise.reject(
        new RateLimitedError(
          `Too many expensive requests (documents, reports, large pages) of this tenant at once: at most ${this.limits.perTenant} run and ${this.limits.queuePerTenant} wait. Retry after the time in Retry-After.`,
          RETRY_AFTER_SECONDS,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: (release) => {
          signal?.removeEventListener('abort', leave);
          resolve(release);
        },
      };
      const leave = () => {
        this.remove(tenant, waiter);
        reject(clientGone());
      };
      if (signal?.aborted) return leave();
      signal?.addEventListener('abort', leave, { once: true });
      queue.push(waiter);
      this.queues.set(tenant, queue);
      this.dispatch();
    });
  }

  /** Requests running and waiting, for the metrics and the tests. */
  state(): { running: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.queues.values()) waiting += queue.length;
    return { running: this.runningTotal, waiting };
  }

  private mayStart(tenant: string): boolean {
    return (
      this.runningTotal < this.limits.total &&
      (this.running.get(tenant) ?? 0) < this.limits.perTenant
    );
  }

  private start(tenant: string): () => void {
    this.running.set(tenant, (this.running.get(tenant) ?? 0) + 1);
    this.runningTotal++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.running.get(tenant)! - 1;
      if (left === 0) this.running.delete(tenant);
      else this.running.set(tenant, left);
      this.runningTotal--;
      this.dispatch();
    };
  }

  /** Gives free places to waiting tenants in turn: one each, the served one to the back. */
  private dispatch(): void {
    let served = true;
    while (served && this.runningTotal < this.limits.total) {
      served = false;
      for (const [tenant, queue] of this.queues) {
        if (!this.mayStart(tenant)) continue;
        const waiter = queue.shift()!;
        this.queues.delete(tenant);
        if (queue.length > 0) this.queues.set(tenant, queue);
        waiter.start(this.start(tenant));
        served = true;
        break;
      }
    }
  }

  private remove(tenant: string, waiter: Waiter): void {
    const queue = this.queues.get(tenant);
    const at = queue?.indexOf(waiter) ?? -1;
    if (at < 0) return;
    queue!.splice(at, 1);
    if (queue!.length === 0) this.queues.delete(tenant);
  }
}

// Nobody reads it: the client has gone. A 4xx, so that nothing is logged as a failure.
function clientGone(): RequestTimeoutError {
  return new RequestTimeoutError('The connection closed while the request waited for its turn.');
}

/** Whether a request of a route marked `expensive` takes a turn. */
function takesTurn(expensive: true | 'large-page', query: unknown): boolean {
  if (expensive === true) return true;
  const limit = (query as { limit?: number } | undefined)?.limit;
  return limit !== undefined && limit > DEFAULT_LIMIT;
}

/**
 * Each route registered in `scope` from here on that is marked `expensive` runs its handler in
 * its tenant's turn. The scope authenticates first (./auth.ts): the handler knows the tenant.
 */
export function registerExpensiveRequests(scope: FastifyInstance, turns: ExpensiveRequests): void {
  scope.addHook('onRoute', (route) => {
    const expensive = route.config?.expensive;
    if (expensive === undefined) return;
    const handler = route.handler;
    const inTurn: RouteHandlerMethod = async function (request, reply) {
      if (!takesTurn(expensive, request.query)) return handler.call(this, request, reply);
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      const release = await turns.admit(request.actor.tenantId, gone.signal);
      // The connection closed as the turn came: the place is given back, nothing is done.
      if (gone.signal.aborted) {
        release();
        throw clientGone();
      }
      // `close` comes once the response is sent, or when the connection ends before.
      reply.raw.once('close', release);
      return handler.call(this, request, reply);
    };
    route.handler = inTurn;
  });
}
