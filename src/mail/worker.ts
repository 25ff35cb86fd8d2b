// The mail worker: claims due messages (committing the attempt before the hand-over), hands
// each to the mail server outside any transaction, then records the outcome in a unit of work
// with what it means to the message's subject (invoice.sent, say).
//
// A message the server accepted is recorded as sent; one it refused is tried again with
// back-off, or failed for good on a permanent refusal (5xx) or after the last attempt. Should a
// worker die after the server accepted a message but before recording it, the lease lapses and
// the message is offered again with the same Message-ID, which mail systems take for the same
// message: it is not delivered twice.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import { unitOfWork } from '../db/unit-of-work.ts';
import { Poller } from '../jobs/poller.ts';
import { operator } from '../tenancy.ts';
import type { MailKind } from './outbox.ts';
import { claimDueMail, recordMailOutcome, type MailRow } from './store.ts';
import { isPermanentFailure, type MailTransport } from './transport.ts';

const MINUTE = 60;
const HOUR = 60 * MINUTE;
/** Seconds before the next attempt after attempt n (1-based): about a day in all. */
export const MAIL_RETRY_SECONDS = [
  30,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
];

export interface MailWorkerOptions {
  transport: MailTransport;
  kinds: Readonly<Record<string, MailKind>>;
  pollMs?: number;
  concurrency?: number;
  /** Longer than an attempt can take (the transport's timeouts), so it lapses only on a death. */
  leaseSeconds?: number;
  /** The back-off (tests shorten it). */
  retrySeconds?: readonly number[];
  onError?: (error: unknown, context: string) => void;
  /** Whose time the pause between polls is (src/clock.ts); the system clock by default. */
  clock?: Clock;
  /** While this says true, no message is claimed (Poller's `yieldTo`). */
  yieldTo?: () => boolean;
}

export class MailWorker {
  readonly #db: Db;
  readonly #options: MailWorkerOptions;
  readonly #poller: Poller<MailRow>;

  constructor(db: Db, options: MailWorkerOptions) {
    this.#db = db;
    this.#options = options;
    const lease = options.leaseSeconds ?? 60;
    this.#poller = new Poller({
      ...options, // pollMs, clock, onError, yieldTo
      name: 'mail',
      concurrency: options.concurrency ?? 4,
      claim: (limit, leaseToken) => claimDueMail(db, limit, lease, leaseToken),
      handle: (mail) => this.#attempt(mail),
    });
  }

  start(): void {
    this.#poller.start();
  }

  stop(): Promise<void> {
    return this.#poller.stop();
  }

  /** Looks for due messages now (after a request queued one). */
  poke(): void {
    this.#poller.poke();
  }

  async #attempt(mail: MailRow): Promise<void> {
    const kind = this.#options.kinds[mail.kind];
    if (!kind) throw new Error(`no handler for mail of kind ${mail.kind}`);
    const retries = this.#options.retrySeconds ?? MAIL_RETRY_SECONDS;
    let outcome: {
      status: 'sent' | 'queued' | 'failed';
      error: string | null;
      retryInSeconds: number;
    };
    try {
      const attachments = await kind.attachments(this.#db, mail);
      const text = kind.text ? await kind.text(this.#db, mail) : mail.body;
      await this.#options.transport.send({
        messageId: mail.message_id,
        to: mail.recipient,
        replyTo: mail.reply_to,
        subject: mail.subject,
        text,
        attachments: attachments.map((a) => ({ ...a, contentType: 'application/pdf' })),
      });
      outcome = { status: 'sent', error: null, retryInSeconds: 0 };
    } catch (error) {
      const delay = retries[mail.attempts - 1];
      const final = isPermanentFailure(error) || delay === undefined;
      outcome = {
        status: final ? 'failed' : 'queued',
        // What the server said, for the invoice's email.lastError: never our internals.
        error: String((error as { response?: unknown }).response ?? (error as Error).message).slice(
          0,
          500,
        ),
        retryInSeconds: final ? 0 : Math.round(delay * (0.9 + 0.2 * Math.random())),
      };
    }
    await unitOfWork(
      this.#db,
      { actor: operator(mail.tenant_id, mail.environment) },
      async (uow) => {
        const recorded = await recordMailOutcome(uow.tx, mail, outcome);
        if (recorded) await kind.recordOutcome(uow, recorded);
      },
    );
  }
}
