// An invoice's documents: a draft's PDF is a preview rendered on request (marked as a draft); an
// issued invoice's PDF and e-invoices are records, rendered once from what was frozen at issue
// and served byte-identical ever after, by the issued-document service (src/documents/).
// What is the invoice's own here: its document model, and that a draft has no e-invoice.
import { utcDateOf } from '../clock.ts';
import { getCustomerRow } from '../customers/service.ts';
import type { Db, Queryable } from '../db/pool.ts';
import type { DocumentModel } from '../documents/model.ts';
import { customerSnapshot, sellerSnapshot } from '../documents/frozen.ts';
import type {
  AttachedPdf,
  DocumentFormat,
  IssuedDocuments,
  IssuedSubject,
} from '../documents/service.ts';
import { StateInvalidError } from '../errors.ts';
import { getSettingsWithTenantName } from '../settings/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { invoiceDocumentModel } from './document.ts';
import { loadInvoiceRow, withLines } from './model.ts';
import type { InvoiceRow } from './store.ts';
import type { Invoice } from './schemas.ts';

/**
 * The invoice's document model: as frozen at issue, or (a draft) as things are `now` (a
 * draft's preview needs it; an issued invoice's dates are frozen), and the invoice as the API
 * shows it `now` (its `overdue`, say).
 */
export async function invoiceModel(
  db: Queryable,
  scope: TenantScope,
  id: string,
  now: Date,
): Promise<{ invoice: Invoice; model: DocumentModel }> {
  return modelOfRow(db, scope, await loadInvoiceRow(db, scope, id), now);
}

async function modelOfRow(
  db: Queryable,
  scope: TenantScope,
  row: InvoiceRow,
  now: Date,
): Promise<{ invoice: Invoice; model: DocumentModel }> {
  const invoice = await withLines(db, scope, row, utcDateOf(now));
  const draft = row.status === 'draft';
  // Invoices issued before sellers were frozen print the seller as it is now.
  const current =
    row.seller_snapshot && row.customer_snapshot
      ? null
      : await getSettingsWithTenantName(db, scope);
  const seller = row.seller_snapshot ?? sellerSnapshot(current!.settings, current!.tenantName);
  const customer =
    draft || !invoice.customer
      ? customerSnapshot(await getCustomerRow(db, scope, row.customer_id), current!.settings)
      : invoice.customer;
  const model = invoiceDocumentModel(invoice, seller, customer, { draft, now });
  return { invoice, model };
}

/**
 * The issued invoice of `row`, as the issued-document service reads it: its model, should its
 * documents have to be rendered, is built from the row already read (what it froze at issue).
 */
function issued(scope: TenantScope, row: InvoiceRow, now: Date): IssuedSubject {
  return {
    id: row.id,
    number: row.number!,
    model: async (on) => (await modelOfRow(on, scope, row, now)).model,
  };
}

async function frozenModel(
  db: Queryable,
  scope: TenantScope,
  id: string,
  now: Date,
): Promise<DocumentModel> {
  return (await invoiceModel(db, scope, id, now)).model;
}

/**
 * The invoice's PDF: a draft's preview (dated `now`, which only a draft needs), or the issued
 * invoice's stored document.
 */
export async function getInvoicePdf(
  db: Db,
  documents: IssuedDocuments,
  scope: TenantScope,
  id: string,
  now: Date,
): Promise<AttachedPdf> {
  // An issued invoice's stored PDF needs only its number: its model is built if it must be
  // rendered, not to serve what is stored.
  const row = await loadInvoiceRow(db, scope, id);
  if (row.status === 'draft') {
    const { model } = await modelOfRow(db, scope, row, now);
    return { filename: `${row.id}-draft.pdf`, pdf: await documents.preview(model) };
  }
  return documents.pdf(db, scope, issued(scope, row, now));
}

/** The issued invoice's e-invoice (UBL or CII); 409 for drafts and for incomplete data. */
export async function getInvoiceEinvoice(
  db: Db,
  documents: IssuedDocuments,
  scope: TenantScope,
  id: string,
  format: 'ubl' | 'cii',
  now: Date,
): Promise<{ filename: string; xml: Buffer }> {
  const row = await loadInvoiceRow(db, scope, id);
  if (row.status === 'draft') {
    throw new StateInvalidError('A draft has no e-invoice; issue it first.');
  }
  return documents.einvoice(db, scope, issued(scope, row, now), format);
}

/** Which documents of the issued invoice exist: the PDF, and the e-invoices its data allow. */
export function issuedInvoiceFormats(
  db: Db,
  documents: IssuedDocuments,
  scope: TenantScope,
  id: string,
  now: Date,
): Promise<Set<DocumentFormat>> {
  return documents.formats(db, scope, { id, model: (on) => frozenModel(on, scope, id, now) });
}
