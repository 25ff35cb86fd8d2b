// A credit note's documents: its PDF and e-invoices, rendered once when it is made and stored
// by the issued-document service (src/documents/), like an invoice's. What is the credit
// note's own here: its document model, from what it froze and the invoice it corrects.
import { utcDateOf } from '../clock.ts';
import type { Db, Queryable } from '../db/pool.ts';
import { sellerSnapshot } from '../documents/frozen.ts';
import type { DocumentModel } from '../documents/model.ts';
import type { IssuedDocuments, IssuedSubject } from '../documents/service.ts';
import { getInvoice, type InvoiceCreditNotes } from '../invoices/service.ts';
import { getSettingsWithTenantName } from '../settings/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { creditNoteDocumentModel } from './document.ts';
import { creditNoteFromRow, loadCreditNoteRow } from './model.ts';
import { selectCreditNoteLines, selectIssuedCreditNotes } from './store.ts';

export async function creditNoteModel(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<DocumentModel> {
  const row = await loadCreditNoteRow(db, scope, id);
  const lines = await selectCreditNoteLines(db, scope, [id]);
  const note = creditNoteFromRow(row, lines);
  // The invoice as of the credit note's day: the document shows nothing that changes with the
  // day (overdue), so it reads the same whenever it is rendered.
  const invoice = await getInvoice(db, scope, row.invoice_id, utcDateOf(row.created_at));
  // Credit notes made before sellers were frozen print the seller as it is now.
  const current = row.seller_snapshot ? null : await getSettingsWithTenantName(db, scope);
  const seller = row.seller_snapshot ?? sellerSnapshot(current!.settings, current!.tenantName);
  return creditNoteDocumentModel(
    note,
    new Map(lines.map((l) => [l.id, l.tax_amounts])),
    invoice,
    seller,
    invoice.customer!,
  );
}

/** The credit note as the issued-document service reads it: its model from what it froze. */
export function creditNoteSubject(
  scope: TenantScope,
  note: { id: string; number: string },
): IssuedSubject {
  return { id: note.id, number: note.number, model: (on) => creditNoteModel(on, scope, note.id) };
}

/**
 * The credit note `id` as the issued-document service reads it: its PDF is then
 * `documents.pdf(db, scope, subject)`, its e-invoices `documents.einvoice(…)`.
 */
export async function issuedCreditNote(
  db: Db,
  scope: TenantScope,
  id: string,
): Promise<IssuedSubject> {
  return creditNoteSubject(scope, await loadCreditNoteRow(db, scope, id));
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
export function invoiceCreditNotes(documents: IssuedDocuments): InvoiceCreditNotes {
  return {
    issued: (db, scope, invoiceId) => issuedCreditNotesOf(db, scope, invoiceId),
    pdf: async (db, scope, id) => documents.pdf(db, scope, await issuedCreditNote(db, scope, id)),
  };
}
