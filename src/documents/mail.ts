// An issued document's e-mail, as a kind of the mail outbox (src/mail/): queued in the
// caller's unit of work to the customer's address as it is now (an address corrected after
// issue should reach the customer; the documents keep the frozen one), sent outside any
// transaction with the document's stored PDF (and those it brings along), its outcome
// recorded as the document's `email`, with its event once the mail server accepted it.
import { todayUtcOf, type Clock } from '../clock.ts';
import type { Db, Tx } from '../db/pool.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { ParameterMissingError } from '../errors.ts';
import { queueMail, type MailKind, type MailRow } from '../mail/outbox.ts';
import { operator, type TenantScope } from '../tenancy.ts';

/** The state of a document's e-mail, as the document shows it. */
export interface DocumentEmail {
  status: 'queued' | 'sent' | 'failed';
  attempts: number;
  lastError: string | null;
}

/** A document's stored e-mail columns, as both kinds of document keep them. */
export interface DocumentEmailColumns {
  sent_at: Date | null;
  email_status: DocumentEmail['status'] | null;
  email_attempts: number;
  email_last_error: string | null;
}

/** The document's `sentAt` and `email`, as the API shows them (null: never queued). */
export function documentEmailOf(row: DocumentEmailColumns): {
  sentAt: string | null;
  email: DocumentEmail | null;
} {
  return {
    sentAt: row.sent_at?.toISOString() ?? null,
    email: row.email_status && {
      status: row.email_status,
      attempts: row.email_attempts,
      lastError: row.email_last_error,
    },
  };
}

/** What one kind of document (an invoice, a credit note) gives its e-mail. */
export interface DocumentMail<Row> {
  /** The outbox kind of the message. */
  kind: string;
  /** Stores the message's state as the document's `email`; the document's row. */
  updateEmail(tx: Tx, scope: TenantScope, id: string, email: DocumentEmail): Promise<Row>;
  /** The event recorded once the mail server accepted the message. */
  sentEvent: string;
  /** What that event carries: the document as sent, as the API shows it on `today`. */
  asSent(tx: Tx, scope: TenantScope, row: Row, today: string): Promise<{ id: string }>;
}

/** A document's stored PDF as a message attaches it. */
export interface AttachedPdf {
  filename: string;
  pdf: Buffer;
}

export interface DocumentMessage {
  subjectId: string;
  replyTo: string | null;
  subject: string;
  body: string;
}

/**
 * Queues the document's e-mail to `customer`'s address; 400 parameter_missing when it has
 * none. Returns the document's row, its `email` queued: `queuedRow` where the caller's own
 * update of the row queued it already (an issue that sends next), else by an update here.
 */
export async function queueDocumentMail<Row>(
  uow: UnitOfWork,
  mail: DocumentMail<Row>,
  customer: { email: string | null },
  message: DocumentMessage,
  queuedRow?: Row,
): Promise<Row> {
  if (!customer.email) {
    throw new ParameterMissingError(
      'customer.email',
      'The customer has no e-mail address; set one on the customer, then send again.',
    );
  }
  // The message and the document's e-mail state go out together: one round trip.
  const [, row] = await Promise.all([
    queueMail(uow, { kind: mail.kind, to: customer.email, ...message }),
    queuedRow ??
      mail.updateEmail(uow.tx, uow.actor, message.subjectId, {
        status: 'queued',
        attempts: 0,
        lastError: null,
      }),
  ]);
  return row;
}

/**
 * The outbox kind of a document's e-mail: it attaches `pdfs` (the document's own first), read
 * as the message is sent, and `text` may add to the stored body what is not stored (a link).
 */
export function documentMailKind<Row>(
  clock: Clock,
  mail: DocumentMail<Row>,
  parts: {
    pdfs(db: Db, scope: TenantScope, id: string): Promise<AttachedPdf[]>;
    text?(db: Db, mail: MailRow): Promise<string>;
  },
): MailKind {
  return {
    ...(parts.text ? { text: parts.text } : {}),
    async attachments(db, message) {
      const scope = operator(message.tenant_id, message.environment);
      const pdfs = await parts.pdfs(db, scope, message.subject_id);
      return pdfs.map(({ filename, pdf }) => ({ filename, content: pdf }));
    },
    async recordOutcome(uow, message) {
      const { tx, actor: scope } = uow;
      const row = await mail.updateEmail(tx, scope, message.subject_id, {
        status: message.status,
        attempts: message.attempts,
        lastError: message.last_error,
      });
      if (message.status === 'sent') {
        uow.event(mail.sentEvent, await mail.asSent(tx, scope, row, todayUtcOf(clock)));
      }
    },
  };
}
