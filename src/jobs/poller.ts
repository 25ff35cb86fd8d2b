// The loop every PostgreSQL-backed queue of the worker runs (webhook deliveries, mail): claim
// due items in a short transaction (FOR UPDATE SKIP LOCKED, with a lease), handle each outside
// any transaction, at most `concurrency` at once; poll again after `pollMs`, or at once when a
// full batch suggests more are due. Any number of workers on one database share a queue. The
// pause between polls is on the worker's clock (src/clock.ts): a test clock moved past it
// makes the worker look again without real waiting.
import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../clock.ts';

export interface PollerOptions<T> {
  /**
   * Claims up to `limit` due items, their lease taken under `leaseToken` (new for every claim,
   * so that only the claimer's outcome counts); [] when none is due.
   */
  claim(limit: number, leaseToken: string): Promise<T[]>;
  /** Handles one claimed item; its failures are its own to record. */
  handle(item: T): Promise<void>;
  /** The pause between polls (500 ms unless given). */
  pollMs?: number | undefined;
  /** Whose time the pause between polls is (the system clock unless given). */
  clock?: Clock | undefined;
  concurrency: number;
  onError?: ((error: unknown, context: string) => void) | undefined;
  /** What the items are, for error messages. */
  name: string;
  /**
   * While this says true, nothing new is claimed (what is claimed is still handled): work that
   * can wait gives the CPU to work that cannot (the billing run, src/subscriptions/run.ts).
   */
  yieldTo?: (() => boolean) | undefined;
}

export class Poller<T> {
  readonly #options: PollerOptions<T>;
  readonly #inFlight = new Set<Promise<void>>();
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: AbortController | undefined;
  #saturated = false;

  constructor(options: PollerOptions<T>) {
    this.#options = options;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Stops claiming, then waits for the items in flight to be handled. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.abort();
    await this.#loop;
    await Promise.all(this.#inFlight);
  }

  /** Looks for due items now rather than at the next poll. */
  poke(): void {
    this.#wake?.abort();
  }

  async #run(): Promise<void> {
    const { concurrency, pollMs = 500 } = this.#options;
    while (this.#running) {
      const free = concurrency - this.#inFlight.size;
      let claimed = 0;
      if (free > 0 && !this.#options.yieldTo?.()) {
        const batch = await this.#claim(free);
        claimed = batch.length;
        for (const item of batch) this.#begin(item);
      }
      // A full batch means more may be due: claim again as soon as a slot frees.
      this.#saturated = free === 0 || claimed === free;
      if (this.#running) await this.#pause(pollMs);
    }
  }

  async #claim(limit: number): Promise<T[]> {
    try {
      return await this.#options.claim(limit, randomBytes(12).toString('base64url'));
    } catch (error) {
      this.#options.onError?.(error, `claiming ${this.#options.name}`);
      return [];
    }
  }

  #begin(item: T): void {
    const handled = this.#options
      .handle(item)
      .catch((error: unknown) => this.#options.onError?.(error, `handling ${this.#options.name}`))
      .finally(() => {
        this.#inFlight.delete(handled);
        if (this.#saturated) this.#wake?.abort();
      });
    this.#inFlight.add(handled);
  }

  async #pause(ms: number): Promise<void> {
    const wake = new AbortController();
    this.#wake = wake;
    await (this.#options.clock ?? systemClock).sleep(ms, wake.signal);
  }
}
