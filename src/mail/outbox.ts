// The mail outbox: a message is queued in the unit of work of the request that asks for it, so
// it exists exactly when that request's change committed, and is sent later by the worker
// (./worker.ts). No mail server is spoken to while a transaction is open.
import type { Db } from '../db/pool.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { newId } from '../ids.ts';
import { insertMail, type MailRow } from './store.ts';

export type { MailRow } from './store.ts';

/** What each kind of message (invoice, credit note, reminder) adds to the outbox's work. */
export interface MailKind {
  /**
   * The message's text as it is sent, from the stored body: for what must not be stored in the
   * outbox (the invoice's hosted link, a capability URL). The stored body when absent.
   */
  text?(db: Db, mail: MailRow): Promise<string>;
  /** The attachments, read when the message is sent (e.g. the invoice's stored PDF). */
  attachments(db: Db, mail: MailRow): Promise<{ filename: string; content: Buffer }[]>;
  /** Records the message's outcome (queued again, sent, failed) on what it is about. */
  recordOutcome(uow: UnitOfWork, mail: MailRow): Promise<void>;
}

export interface QueuedMail {
  kind: string;
  /** The object the message is about (an invoice, a credit note). */
  subjectId: string;
  to: string;
  replyTo: string | null;
  subject: string;
  body: string;
}

/** Queues a message in the caller's unit of work; returns its id. */
export async function queueMail(uow: UnitOfWork, mail: QueuedMail): Promise<string> {
  const id = newId('mail');
  // Fixed now, the same on every attempt: a message offered twice is one message.
  const messageId = `<${id}@billing-api>`;
  await insertMail(uow.tx, uow.actor, { ...mail, id, messageId });
  return id;
}
