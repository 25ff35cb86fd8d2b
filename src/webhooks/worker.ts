// The webhook delivery worker: runs in every server process (config.runWorker) or alone
// (`billing worker`). It claims due deliveries in a short transaction (FOR UPDATE SKIP LOCKED,
// with a lease), sends them outside any transaction, then records each attempt; so any number
// of workers on one database share the queue without sending one attempt twice.
import { systemClock, type Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { SecretsKeyring } from '../secrets/keyring.ts';
import { Poller } from '../jobs/poller.ts';
import { recordAttemptOutcome } from './deliveries.ts';
import { openSigningSecret } from './endpoints.ts';
import { claimDueDeliveries, type ClaimedDelivery } from './store.ts';
import { ATTEMPT_TIMEOUT_MS, sendWebhook } from './sender.ts';

export interface WorkerOptions {
  /** config.webhooksAllowLoopback. */
  allowLoopback: boolean;
  /** Opens the endpoints' sealed signing secrets. */
  secrets: SecretsKeyring;
  /** How often an idle worker looks for due deliveries. */
  pollMs?: number;
  /** Attempts in flight at once. */
  concurrency?: number;
  /** Per attempt: no answer within this is a failure. */
  timeoutMs?: number;
  onError?: (error: unknown, context: string) => void;
  /** Where attempts read the time (src/clock.ts); the system clock by default. */
  clock?: Clock;
}

// Longer than an attempt can take (DNS, then the 10 s timeout), so a lease only lapses when
// its worker died; the delivery is then attempted again (at least once, never lost).
const LEASE_SECONDS = 60;

export class WebhookWorker {
  readonly #db: Db;
  readonly #options: WorkerOptions;
  readonly #poller: Poller<ClaimedDelivery>;
  /** Attempts this worker made, for tests and metrics. */
  attemptsMade = 0;

  constructor(db: Db, options: WorkerOptions) {
    this.#db = db;
    this.#options = options;
    const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.#poller = new Poller({
      ...options, // pollMs, clock, onError
      name: 'webhook deliveries',
      concurrency: options.concurrency ?? 16,
      claim: (limit, leaseToken) => claimDueDeliveries(db, limit, LEASE_SECONDS, leaseToken),
      // Cancelled by the claim: its endpoint was disabled.
      handle: (delivery) =>
        delivery.endpoint_disabled ? Promise.resolve() : this.#attempt(delivery, timeoutMs),
    });
  }

  start(): void {
    this.#poller.start();
  }

  /** Stops claiming, then waits for the attempts in flight to finish and be recorded. */
  stop(): Promise<void> {
    return this.#poller.stop();
  }

  async #attempt(delivery: ClaimedDelivery, timeoutMs: number): Promise<void> {
    const body = JSON.stringify({
      type: delivery.event_type,
      timestamp: delivery.event_created_at.toISOString(),
      data: delivery.event_data,
      actor: delivery.event_actor,
    });
    const scope = { tenantId: delivery.tenant_id, environment: delivery.environment };
    const secret = openSigningSecret(
      this.#options.secrets,
      scope,
      delivery.endpoint_id,
      delivery.secret,
    );
    const outcome = await sendWebhook(
      delivery.url,
      secret,
      { id: delivery.event_id, body },
      { environment: delivery.environment, allowLoopback: this.#options.allowLoopback },
      timeoutMs,
      this.#options.clock,
    );
    this.attemptsMade++;
    try {
      await recordAttemptOutcome(this.#db, delivery, outcome, this.#options.clock ?? systemClock);
    } catch (error) {
      // The lease lapses and the delivery is attempted again: at least once.
      this.#options.onError?.(error, 'recording a webhook attempt');
    }
  }
}
