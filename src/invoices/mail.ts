// The invoice e-mail as a kind of the mail outbox (src/mail/): its attachments are the invoice's
// stored PDF and those of its credit notes, its text ends with the link to the hosted page, and
// its outcome is the invoice's `email`, with sentAt and invoice.sent once the mail server
// accepted it.
//
// The message states the invoice's total as the attached invoice prints it. What changed what
// is due since the invoice was issued (credit notes, payments) is added as the message is sent,
// with the credit notes' PDFs attached, so that the text, the attachments and the hosted page
// tell the same story at that moment; a paid invoice's message says that it is paid. The link
// offers only what the page offers: the invoice to view and download (no online payment).
import { todayUtcOf, type Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import { formatAmount, formatDate, resolveLocale, t } from '../documents/i18n.ts';
import type { DocumentLocale } from '../documents/model.ts';
import type { AttachedPdf, DocumentMail, IssuedDocuments } from '../documents/service.ts';
import type { HostedLinks } from '../hosted/links.ts';
import type { MailKind, MailRow } from '../mail/outbox.ts';
import { operator, type TenantScope } from '../tenancy.ts';
import { getInvoicePdf } from './documents.ts';
import { invoiceFromRow, loadInvoiceRow, withLines } from './model.ts';
import type { Invoice } from './schemas.ts';
import { selectLines } from './lines-store.ts';
import { updateInvoiceEmail, type InvoiceRow } from './store.ts';

export const INVOICE_MAIL = 'invoice';

/** The invoice's e-mail as the issued-document service queues it and records its outcome. */
export const INVOICE_EMAIL: DocumentMail<InvoiceRow> = {
  kind: INVOICE_MAIL,
  updateEmail: updateInvoiceEmail,
  sentEvent: 'invoice.sent',
  asSent: async (tx, scope, row, today) =>
    invoiceFromRow(row, await selectLines(tx, scope, [row.id]), today),
};

/** A credit note of the invoice, as the e-mail names it. */
export interface MailedCreditNote {
  id: string;
  number: string;
  total: number;
}

/**
 * The invoice's credit notes, from the credit-note module (which builds on this one and is
 * handed in where the mail kinds are put together, src/jobs/).
 */
export interface InvoiceCreditNotes {
  /** The credit notes of the invoice that are not void, oldest first. */
  issued(db: Db, scope: TenantScope, invoiceId: string): Promise<MailedCreditNote[]>;
  /** A credit note's stored PDF. */
  pdf(db: Db, scope: TenantScope, id: string): Promise<AttachedPdf>;
}

/**
 * The PDFs a message about the invoice attaches (its e-mail, a reminder): the invoice's, then
 * those of its credit notes that are not void, as they are when the message is sent.
 */
export async function invoicePdfs(
  db: Db,
  documents: IssuedDocuments,
  creditNotes: InvoiceCreditNotes,
  scope: TenantScope,
  id: string,
  now: Date,
): Promise<AttachedPdf[]> {
  const attached = [await getInvoicePdf(db, documents, scope, id, now)];
  for (const note of await creditNotes.issued(db, scope, id)) {
    attached.push(await creditNotes.pdf(db, scope, note.id));
  }
  return attached;
}

function listOf(items: string[], locale: DocumentLocale): string {
  return new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' }).format(items);
}

/**
 * What changed what the invoice asks for since it was issued, in the customer's language: its
 * credit notes (attached), the payments received, and then either that it is paid or what is
 * still due. Nothing when nothing changed.
 */
export function invoiceStateText(
  invoice: Pick<Invoice, 'status' | 'currency' | 'amountRemaining' | 'payments'>,
  creditNotes: readonly MailedCreditNote[],
  locale: DocumentLocale,
): string | null {
  const money = (amount: number) => formatAmount(amount, invoice.currency, locale);
  const sentences: string[] = [];
  if (creditNotes.length > 0) {
    const list = listOf(
      creditNotes.map((note) => `${note.number} (${money(note.total)})`),
      locale,
    );
    sentences.push(t(locale, 'email.invoice.creditNotes', { count: creditNotes.length, list }));
  }
  const received = invoice.payments.filter((p) => p.status === 'succeeded');
  if (received.length > 0) {
    const list = listOf(
      received.map((p) =>
        t(locale, 'email.invoice.paymentItem', {
          amount: money(p.amount),
          date: formatDate(p.receivedAt.slice(0, 10), locale),
        }),
      ),
      locale,
    );
    sentences.push(t(locale, 'email.invoice.payments', { list }));
  }
  if (invoice.status === 'paid') sentences.push(t(locale, 'email.invoice.paid'));
  else if (sentences.length > 0) {
    sentences.push(
      t(locale, 'email.invoice.amountDue', { amount: money(invoice.amountRemaining) }),
    );
  }
  return sentences.length > 0 ? sentences.join(' ') : null;
}

/**
 * Puts paragraphs into a queued message before its signature (the last paragraph, "Kind
 * regards, …"), or at its end when the signature is not found.
 */
export function beforeSignature(body: string, signature: string, paragraphs: string[]): string {
  if (paragraphs.length === 0) return body;
  const added = paragraphs.join('\n\n');
  if (!body.endsWith(`\n\n${signature}`)) return `${body}\n\n${added}`;
  const opening = body.slice(0, body.length - signature.length - 2);
  return `${opening}\n\n${added}\n\n${signature}`;
}

/** The text of the link to the invoice's hosted page, as the message is sent (or null: none). */
export async function hostedLinkText(
  db: Db,
  links: HostedLinks,
  mail: MailRow,
  locale: DocumentLocale,
): Promise<string | null> {
  const scope = operator(mail.tenant_id, mail.environment);
  const url = await links.urlFor(db, scope, mail.subject_id);
  return url === null ? null : t(locale, 'email.viewOnline', { url });
}

export function invoiceMail(
  documents: IssuedDocuments,
  links: HostedLinks,
  creditNotes: InvoiceCreditNotes,
  clock: Clock,
): MailKind {
  return documents.mailKind(INVOICE_EMAIL, {
    // The link is added as the message is sent, never stored in the outbox: it is a capability
    // URL, and no secret is kept in clear (docs/decisions.md). A link replaced since the message
    // was queued is sent as it is now; an invoice without a working link gets none.
    async text(db, mail) {
      const scope = operator(mail.tenant_id, mail.environment);
      const row = await loadInvoiceRow(db, scope, mail.subject_id);
      const invoice = await withLines(db, scope, row, todayUtcOf(clock));
      const locale = resolveLocale(row.customer_snapshot?.locale);
      const notes = await creditNotes.issued(db, scope, invoice.id);
      const state = invoiceStateText(invoice, notes, locale);
      const link = await hostedLinkText(db, links, mail, locale);
      const seller = row.seller_snapshot?.name;
      const signature = seller === undefined ? '' : t(locale, 'email.signature', { seller });
      const paragraphs = [state, link].filter((p): p is string => p !== null);
      return beforeSignature(mail.body, signature, paragraphs);
    },
    pdfs: (db, scope, id) => invoicePdfs(db, documents, creditNotes, scope, id, clock.now()),
  });
}
