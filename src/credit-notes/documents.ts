// A credit note's documents (its PDF and e-invoices, rendered once when it is made and stored,
// src/documents/service.ts) and its e-mail, like an invoice's.
import { todayUtcOf, utcDateOf, type Clock } from '../clock.ts';
import type { Db, Queryable } from '../db/pool.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { einvoiceGaps } from '../documents/einvoice/completeness.ts';
import { formatAmount, resolveLocale, t } from '../documents/i18n.ts';
import type { DocumentModel } from '../documents/model.ts';
import type { RenderPool } from '../documents/render-pool.ts';
import {
  documentFilename,
  issuedDocument,
  issuedDocumentFormats,
  type DocumentFormat,
} from '../documents/service.ts';
import { getCustomerRow } from '../customers/service.ts';
import { EinvoiceIncompleteError, ParameterMissingError, StateInvalidError } from '../errors.ts';
import { getInvoice, type InvoiceCreditNotes } from '../invoices/service.ts';
import { queueMail, type MailKind } from '../mail/outbox.ts';
import { getSettingsRow } from '../settings/service.ts';
import { getTenant } from '../tenants/service.ts';
import { operator, type TenantScope } from '../tenancy.ts';
import { creditNoteDocumentModel } from './document.ts';
import type { CreditNote } from './schemas.ts';
import { creditNoteFromRow } from './model.ts';
import {
  selectCreditNote,
  selectCreditNoteLines,
  selectIssuedCreditNotes,
  updateCreditNoteEmail,
  type CreditNoteRow,
} from './store.ts';
import { ResourceMissingError } from '../errors.ts';
import { sellerSnapshot } from '../invoices/snapshots.ts';

export const CREDIT_NOTE_MAIL = 'credit_note';

async function loadRow(db: Queryable, scope: TenantScope, id: string): Promise<CreditNoteRow> {
  const row = await selectCreditNote(db, scope, id);
  if (!row) throw new ResourceMissingError('credit note', id);
  return row;
}

export async function creditNoteModel(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<DocumentModel> {
  const row = await loadRow(db, scope, id);
  const lines = await selectCreditNoteLines(db, scope, [id]);
  const note = creditNoteFromRow(row, lines);
  // The invoice as of the credit note's day: the document shows nothing of it that depends on
  // the day (its `overdue`), and is rendered alike whenever it is.
  const invoice = await getInvoice(db, scope, row.invoice_id, utcDateOf(row.created_at));
  // Credit notes made before sellers were frozen print the seller as it is now.
  const seller =
    row.seller_snapshot ??
    sellerSnapshot(await getSettingsRow(db, scope), (await getTenant(db, scope.tenantId)).name);
  return creditNoteDocumentModel(
    note,
    new Map(lines.map((l) => [l.id, l.tax_amounts])),
    invoice,
    seller,
    invoice.customer!,
  );
}

function stored(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  id: string,
  format: DocumentFormat,
) {
  return issuedDocument(db, renderer, scope, id, format, () => creditNoteModel(db, scope, id));
}

export async function getCreditNotePdf(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  id: string,
): Promise<{ filename: string; pdf: Buffer }> {
  const row = await loadRow(db, scope, id);
  const document = await stored(db, renderer, scope, id, 'pdf');
  return {
    filename: documentFilename(row.number, '.pdf'),
    pdf: (document as { content: Buffer }).content,
  };
}

export async function getCreditNoteEinvoice(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  id: string,
  format: 'ubl' | 'cii',
): Promise<{ filename: string; xml: Buffer }> {
  const row = await loadRow(db, scope, id);
  const document = await stored(db, renderer, scope, id, format);
  if ('missing' in document) {
    // Each field with the reason the rules give (an e-mail address is there, yet unroutable).
    const reasons = einvoiceGaps(await creditNoteModel(db, scope, id), format);
    throw new EinvoiceIncompleteError(document.missing, { reasons });
  }
  return { filename: documentFilename(row.number, `-${format}.xml`), xml: document.content };
}

/** Which documents of the credit note exist: the PDF, and the e-invoices its data allow. */
export function issuedCreditNoteFormats(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  id: string,
): Promise<Set<DocumentFormat>> {
  return issuedDocumentFormats(db, renderer, scope, id, () => creditNoteModel(db, scope, id));
}

/** An issued (not void) credit note of an invoice, as the invoice's e-mail and page name it. */
export interface IssuedCreditNote {
  id: string;
  number: string;
  total: number;
  /** ISO 8601: the credit note's date. */
  createdAt: string;
}

/** The invoice's credit notes that are not void, oldest first. */
export async function issuedCreditNotesOf(
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
): Promise<IssuedCreditNote[]> {
  const rows = await selectIssuedCreditNotes(db, scope, invoiceId);
  return rows.map((row) => ({
    id: row.id,
    number: row.number,
    total: row.total,
    createdAt: row.created_at.toISOString(),
  }));
}

/** What the invoice e-mail needs of the invoice's credit notes (src/invoices/mail.ts). */
export function invoiceCreditNotes(renderer: RenderPool): InvoiceCreditNotes {
  return {
    issued: (db, scope, invoiceId) => issuedCreditNotesOf(db, scope, invoiceId),
    pdf: (db, scope, id) => getCreditNotePdf(db, renderer, scope, id),
  };
}

/** Renders and stores a new credit note's documents (see renderIssuedInvoice). */
export async function renderIssuedCreditNote(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  id: string,
): Promise<void> {
  await stored(db, renderer, scope, id, 'pdf').catch(() => undefined);
}

/** Queues the credit note's e-mail with its PDF to the customer (see sendInvoice). */
export function sendCreditNote(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
): Promise<Written<CreditNote>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await selectCreditNote(tx, scope, id, { forUpdate: true });
    if (!row) throw new ResourceMissingError('credit note', id);
    if (row.status === 'void') throw new StateInvalidError('A void credit note is not sent.');
    const customer = await getCustomerRow(tx, scope, row.customer_id);
    if (!customer.email) {
      throw new ParameterMissingError(
        'customer.email',
        'The customer has no e-mail address; set one on the customer, then send again.',
      );
    }
    const invoice = await getInvoice(tx, scope, row.invoice_id, todayUtcOf(clock));
    const locale = resolveLocale(invoice.customer?.locale);
    const values = {
      number: row.number,
      invoiceNumber: invoice.number!,
      seller: row.seller_snapshot?.name ?? (await getTenant(tx, scope.tenantId)).name,
      customer: customer.name ?? '',
      amount: formatAmount(row.total, row.currency, locale),
    };
    await queueMail(uow, {
      kind: CREDIT_NOTE_MAIL,
      subjectId: id,
      to: customer.email,
      replyTo: row.seller_snapshot?.email ?? null,
      subject: t(locale, 'email.creditNote.subject', values),
      body: t(locale, 'email.creditNote.body', values),
    });
    const queued = await updateCreditNoteEmail(tx, scope, id, {
      status: 'queued',
      attempts: 0,
      lastError: null,
    });
    return creditNoteFromRow(queued, await selectCreditNoteLines(tx, scope, [id]));
  });
}

export function creditNoteMail(renderer: RenderPool): MailKind {
  return {
    async attachments(db, mail) {
      const scope = operator(mail.tenant_id, mail.environment);
      const { filename, pdf } = await getCreditNotePdf(db, renderer, scope, mail.subject_id);
      return [{ filename, content: pdf }];
    },
    async recordOutcome(uow, mail) {
      const { tx, actor: scope } = uow;
      const row = await updateCreditNoteEmail(tx, scope, mail.subject_id, {
        status: mail.status,
        attempts: mail.attempts,
        lastError: mail.last_error,
      });
      if (mail.status === 'sent') {
        const lines = await selectCreditNoteLines(tx, scope, [row.id]);
        uow.event('credit_note.sent', creditNoteFromRow(row, lines));
      }
    },
  };
}
