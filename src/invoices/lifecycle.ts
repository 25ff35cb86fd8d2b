// The invoice lifecycle after the draft: issue, void, mark uncollectible, send. Every move is
// checked against the state machine (state.ts) on the locked row. Paying is a payment
// (src/payments/, through ./payments.ts).
import { todayUtcOf, utcDateOf, type Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import {
  unitOfWork,
  type UnitOfWork,
  type WriteRequest,
  type Written,
} from '../db/unit-of-work.ts';
import { getTenant } from '../tenants/service.ts';
import { formatAmount, formatDate, resolveLocale, t } from '../documents/i18n.ts';
import type { IssuedDocuments, TakeNumber } from '../documents/service.ts';
import type { HostedLinks } from '../hosted/links.ts';
import { INVOICE_EMAIL } from './mail.ts';
import { assertIssuable } from './einvoice-readiness.ts';
import { assertAllowed, invoiceFromRow, lockInvoiceFor } from './model.ts';
import { shownByWrite } from './hosted-link.ts';
import { priceInvoice, ratesForInvoice } from './pricing.ts';
import type { Invoice } from './schemas.ts';
import { customerOf, settingsOf, type SharedReads } from './shared-reads.ts';
import { frozenAtIssue } from './snapshots.ts';
import { markIssued } from './draft-store.ts';
import { selectLines, type LineRow } from './lines-store.ts';
import { applyTransition, type InvoiceRow } from './store.ts';

/**
 * What a caller of the lifecycle records in the same transaction as the move (the subscription
 * run: the next step of its work on the invoice, so that each step happens exactly once).
 */
export type AlsoInTransaction = (uow: UnitOfWork) => Promise<void>;

/**
 * Issues a draft: prices it a last time (with the customer's tax status as it is now), freezes
 * the customer and the tax breakdown, and gives it the next number and its hosted link. An
 * invoice whose total is 0 is paid at once.
 */
export async function issueInvoice(
  db: Db,
  clock: Clock,
  documents: IssuedDocuments,
  links: HostedLinks,
  request: WriteRequest,
  id: string,
  also?: AlsoInTransaction,
): Promise<Written<Invoice>> {
  const written = await unitOfWork(db, request, (uow) =>
    issueInvoiceIn(uow, clock, documents, links, id, also),
  );
  // Its documents are rendered from what was just frozen, after this answer (its render was
  // queued with its events).
  if (!written.replayed) documents.issued();
  return written;
}

/** What a caller issuing many invoices in one transaction gives each issue (the run's batch). */
export interface BatchIssue {
  /** How the issue takes its number (a share of the batch's NumberBlock). */
  takeNumber?: TakeNumber;
  /** What the batch read once for all its invoices (./shared-reads.ts). */
  reads?: SharedReads;
  /** Told the issued row and its lines, for what the batch does next to it (its e-mail). */
  issued?: (issued: IssuedRow) => void;
  /**
   * The batch sends the invoice next: where its customer has an address, the issue's own
   * update queues the e-mail's state, and the send only queues the message (IssuedRow).
   */
  thenSend?: boolean;
}

/** An invoice as its issue left it, in the transaction that holds its row locked. */
export interface IssuedRow {
  row: InvoiceRow;
  lines: LineRow[];
  /** The row's e-mail is queued already (BatchIssue.thenSend). */
  emailQueued?: boolean;
}

/**
 * The issue of one draft inside the caller's unit of work: the billing run issues a batch of
 * its invoices in one (src/subscriptions/run-invoices.ts), each by this same code; the numbers
 * stay gapless since they commit or roll back together. The caller says `documents.issued()`
 * after its commit.
 */
export async function issueInvoiceIn(
  uow: UnitOfWork,
  clock: Clock,
  documents: IssuedDocuments,
  links: HostedLinks,
  id: string,
  also?: AlsoInTransaction,
  batch: BatchIssue = {},
): Promise<Invoice> {
  const { tx, actor: scope } = uow;
  const { reads } = batch;
  const takeNumber: TakeNumber =
    batch.takeNumber ?? ((t, s, prefix) => documents.nextNumber(t, s, 'invoice', prefix));
  // Sent at once, one round trip each (the pool pipelines): the row, locked first, so that
  // what the other reads find of it is what the lock holds, its lines and the settings; then
  // its customer and the rates its lines name.
  const [row, lines, { settings, tenantName }] = await Promise.all([
    lockInvoiceFor(tx, scope, id, 'issue'),
    selectLines(tx, scope, [id]),
    settingsOf(tx, scope, reads),
  ]);
  const change = { newlyUsed: new Set<string>(), param: 'lines' };
  const [customer, rates] = await Promise.all([
    customerOf(tx, scope, row.customer_id, reads),
    ratesForInvoice(tx, scope, row.default_tax_rates, lines, change, reads?.taxRates),
  ]);
  const totals = priceInvoice(lines, row.default_tax_rates, rates, customer.tax_exempt, 'lines');
  const issuedAt = clock.now();
  const frozen = frozenAtIssue(row, customer, settings, tenantName, issuedAt);
  // A draft has no hosted page: the issue makes its first link, whose expiry needs only the
  // dates just frozen. Sent with the number's statement (one round trip), before it: the
  // counter row, locked from the number until the transaction ends, is held for less.
  const linked = { id, dueDate: frozen.due_date, issuedAt: issuedAt.toISOString() };
  const linking = links.make(tx, scope, linked, issuedAt, { first: true });
  linking.catch(() => undefined); // awaited below; a failure fails the issue there
  // Taken last: the counter row stays locked until this transaction ends.
  const number = await takeNumber(tx, scope, settings.invoice_prefix);
  const emailQueued = batch.thenSend === true && customer.email !== null;
  const issued = await markIssued(
    tx,
    scope,
    id,
    { ...frozen, number, paid: totals.total === 0, emailQueued },
    totals,
  );
  const url = await linking;
  batch.issued?.({ row: issued, lines, emailQueued });
  // The event says the invoice as issued, before its e-mail was queued, as an issue and a
  // send one after the other do.
  const asIssued = emailQueued
    ? {
        ...issued,
        email_status: row.email_status,
        email_attempts: row.email_attempts,
        email_last_error: row.email_last_error,
      }
    : issued;
  const invoice = invoiceFromRow(asIssued, lines, utcDateOf(issuedAt));
  if (settings.einvoice_required) assertIssuable(invoice, issued.seller_snapshot!);
  uow.event('invoice.issued', invoice);
  if (invoice.status === 'paid') uow.event('invoice.paid', invoice);
  await also?.(uow);
  return shownByWrite(uow, links, invoice, url);
}

/** The moves of an issued invoice that only change its status, with the event each records. */
const TRANSITIONS = {
  void: 'invoice.voided',
  mark_uncollectible: 'invoice.marked_uncollectible',
} as const;

/** Voids an invoice (its hosted page stays, and says it is void) or marks it uncollectible. */
export function transitionInvoice(
  db: Db,
  clock: Clock,
  links: HostedLinks,
  request: WriteRequest,
  id: string,
  action: keyof typeof TRANSITIONS,
  also?: AlsoInTransaction,
): Promise<Written<Invoice>> {
  return unitOfWork(db, request, (uow) => transitionInvoiceIn(uow, clock, links, id, action, also));
}

/** The move of transitionInvoice inside the caller's unit of work (the run's batches). */
export async function transitionInvoiceIn(
  uow: UnitOfWork,
  clock: Clock,
  links: HostedLinks,
  id: string,
  action: keyof typeof TRANSITIONS,
  also?: AlsoInTransaction,
): Promise<Invoice> {
  const { tx, actor: scope } = uow;
  // One round trip: the move, the lines and the hosted link go out with the lock and run
  // after it. The move changes nothing on an invoice it does not move from, and the lock's
  // refusal (404, 409) is what is thrown.
  const [, changed, lines, url] = await Promise.all([
    lockInvoiceFor(tx, scope, id, action),
    applyTransition(tx, scope, id, action),
    selectLines(tx, scope, [id]),
    links.urlFor(tx, scope, id),
  ]);
  const invoice = invoiceFromRow(changed!, lines, todayUtcOf(clock));
  uow.event(TRANSITIONS[action], invoice);
  await also?.(uow);
  return shownByWrite(uow, links, invoice, url);
}

/**
 * Queues the e-mail of an open, paid or uncollectible invoice (it delivers the record; a void
 * one or a draft is 409), with its PDF, to the customer's address as it is now
 * (an address corrected after issue should reach the customer; the PDF keeps the frozen one).
 * The mail worker sends it outside any transaction (src/mail/); sentAt and invoice.sent are
 * recorded when the mail server accepted it, and the link to the hosted page is added to the
 * text as it is sent, so that the queued message holds no capability URL (./mail.ts).
 */
export function sendInvoice(
  db: Db,
  clock: Clock,
  documents: IssuedDocuments,
  links: HostedLinks,
  request: WriteRequest,
  id: string,
  also?: AlsoInTransaction,
): Promise<Written<Invoice>> {
  return unitOfWork(db, request, (uow) => sendInvoiceIn(uow, clock, documents, links, id, also));
}

/**
 * The e-mail of sendInvoice queued inside the caller's unit of work (the run's batches, which
 * give what they read for all their invoices, and the hosted URL of the invoice they have just
 * issued in it).
 */
export async function sendInvoiceIn(
  uow: UnitOfWork,
  clock: Clock,
  documents: IssuedDocuments,
  links: HostedLinks,
  id: string,
  also?: AlsoInTransaction,
  batch: { reads?: SharedReads; hostedUrl?: string | null; issued?: IssuedRow } = {},
): Promise<Invoice> {
  const { tx, actor: scope } = uow;
  // Right after its issue in the same transaction, the invoice is as the issue left it, and
  // locked already.
  const { issued } = batch;
  if (issued) assertAllowed(issued.row, 'send');
  // Alone: the lines (an issued invoice's do not change: read once, for the e-mail and the
  // answer) and the hosted link go out with the lock, in one round trip.
  const [row, lines, url] = issued
    ? [issued.row, issued.lines, undefined]
    : await Promise.all([
        lockInvoiceFor(tx, scope, id, 'send'),
        selectLines(tx, scope, [id]),
        links.urlFor(tx, scope, id),
      ]);
  const customer = await customerOf(tx, scope, row.customer_id, batch.reads);
  const today = todayUtcOf(clock);
  const invoice = invoiceFromRow(row, lines, today);
  // In the language of the invoice's documents, from the seller it was issued by.
  const { name: seller, email: replyTo } = row.seller_snapshot ?? {
    name: (await getTenant(tx, scope.tenantId)).name,
    email: null,
  };
  const locale = resolveLocale(invoice.customer?.locale);
  const values = {
    number: invoice.number!,
    seller,
    customer: customer.name ?? '',
    // The total the attached invoice shows; what changed what is due since is added as the
    // message is sent (./mail.ts).
    amount: formatAmount(invoice.total, invoice.currency, locale),
    dueDate: invoice.dueDate ? formatDate(invoice.dueDate, locale) : '—',
  };
  const message = {
    subjectId: invoice.id,
    replyTo,
    subject: t(locale, 'email.invoice.subject', values),
    body: `${t(locale, 'email.invoice.body', values)}\n\n${t(locale, 'email.signature', values)}`,
  };
  const queuedByIssue = issued?.emailQueued ? issued.row : undefined;
  const queued = await documents.queueMail(uow, INVOICE_EMAIL, customer, message, queuedByIssue);
  await also?.(uow);
  // The URL read with the lock; after the batch's issue, the one it made (else read).
  const hostedUrl = url !== undefined ? url : (batch.hostedUrl ?? undefined);
  return shownByWrite(uow, links, invoiceFromRow(queued, lines, today), hostedUrl);
}
