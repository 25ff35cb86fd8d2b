// The webhook delivery worker: runs in every server process (config.runWorker) or alone
// (`billing worker`). It claims due deliveries in a short transaction (FOR UPDATE SKIP LOCKED,
// with a lease), sends them outside any transaction, then records each attempt; so any number
// of workers on one database share the queue without sending one attempt twice.
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import type { Db } from '../db/pool.ts';
import { recordAttemptOutcome } from './deliveries.ts';
import { claimDueDeliveries, type ClaimedDelivery } from './delivery-store.ts';
import { ATTEMPT_TIMEOUT_MS, sendWebhook } from './sender.ts';

export interface WorkerOptions {
  /** config.webhooksAllowLoopback. */
  allowLoopback: boolean;
  /** How often an idle worker looks for due deliveries. */
  pollMs?: number;
  /** Attempts in flight at once. */
  concurrency?: number;
  /** Per attempt: no answer within this is a failure. */
  timeoutMs?: number;
  onError?: (error: unknown, context: string) => void;
}

// Longer than an attempt can take (DNS, then the 10 s timeout), so a lease only lapses when
// its worker died; the delivery is then attempted again (at least once, never lost).
const LEASE_SECONDS = 60;

export class WebhookWorker {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private wake: (() => void) | undefined;
  private saturated = false;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  /** Attempts this worker made, for tests and metrics. */
  attemptsMade = 0;

  constructor(
    private readonly db: Db,
    private readonly options: WorkerOptions,
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.concurrency = options.concurrency ?? 16;
    this.timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming, then waits for the attempts in flight to finish and be recorded. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.concurrency - this.inFlight.size;
      let claimed = 0;
      if (free > 0) {
        const batch = await this.claim(free);
        claimed = batch.length;
        for (const delivery of batch) {
          // Cancelled by the claim: its endpoint was disabled.
          if (!delivery.endpoint_disabled) this.begin(delivery);
        }
      }
      // A full batch means more may be due: claim again as soon as a slot frees, rather than
      // at the next poll.
      this.saturated = free === 0 || claimed === free;
      if (this.running) await this.pause(this.pollMs);
    }
  }

  private async claim(limit: number): Promise<ClaimedDelivery[]> {
    try {
      const token = randomBytes(12).toString('base64url');
      return await claimDueDeliveries(this.db, limit, LEASE_SECONDS, token);
    } catch (error) {
      this.options.onError?.(error, 'claiming webhook deliveries');
      return [];
    }
  }

  private begin(delivery: ClaimedDelivery): void {
    const attempt = this.attempt(delivery).finally(() => {
      this.inFlight.delete(attempt);
      if (this.saturated) this.wake?.();
    });
    this.inFlight.add(attempt);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const body = JSON.stringify({
      type: delivery.event_type,
      timestamp: delivery.event_created_at.toISOString(),
      data: delivery.event_data,
    });
    const outcome = await sendWebhook(
      delivery.url,
      delivery.secret,
      { id: delivery.event_id, body },
      { environment: delivery.environment, allowLoopback: this.options.allowLoopback },
      this.timeoutMs,
    );
    this.attemptsMade++;
    try {
      await recordAttemptOutcome(this.db, delivery, outcome);
    } catch (error) {
      // The lease lapses and the delivery is attempted again: at least once.
      this.options.onError?.(error, 'recording a webhook attempt');
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/**
 * `billing worker`: the worker alone, on the configured database, until SIGTERM or SIGINT;
 * then the attempts in flight finish before it exits.
 */
export async function runStandaloneWorker(
  config: Config,
  log: (message: string) => void,
): Promise<void> {
  const database = await openDatabase(config, log, 5);
  try {
    await migrate(database.direct);
    const worker = new WebhookWorker(database.db, {
      allowLoopback: config.webhooksAllowLoopback,
      onError: (error, context) => log(`${context}: ${String(error)}`),
    });
    worker.start();
    log('webhook worker running');
    const signal = await new Promise<string>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    log(`${signal} received: finishing attempts in flight, then stopping`);
    await worker.stop();
  } finally {
    await database.close();
  }
}
