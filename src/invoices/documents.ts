// An invoice's documents: a draft's PDF is a preview rendered on request (marked as a draft); an
// issued invoice's PDF and e-invoices are records, rendered once from what was frozen at issue
// and served byte-identical ever after (src/documents/service.ts).
import { utcDateOf } from '../clock.ts';
import { getCustomerRow } from '../customers/service.ts';
import type { Db, Queryable } from '../db/pool.ts';
import type { DocumentModel } from '../documents/model.ts';
import type { RenderPool } from '../documents/render-pool.ts';
import {
  documentFilename,
  issuedDocument,
  issuedDocumentFormats,
  renderIssued,
  type DocumentFormat,
  type StoredDocument,
} from '../documents/service.ts';
import { StateInvalidError } from '../errors.ts';
import { getTenant } from '../tenants/service.ts';
import { getSettingsRow } from '../settings/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { invoiceDocumentModel } from './document.ts';
import { einvoiceRefusal } from './einvoice-readiness.ts';
import { loadInvoiceRow, withLines } from './model.ts';
import type { Invoice, SellerSnapshot } from './schemas.ts';
import { customerSnapshot, sellerSnapshot } from './snapshots.ts';

/**
 * The invoice's document model: as frozen at issue, or (a draft) as things are `now` (a
 * draft's preview needs it; an issued invoice's dates are frozen). The invoice with it is as
 * the API shows it `now` (its `overdue`, say).
 */
export async function invoiceModel(
  db: Queryable,
  scope: TenantScope,
  id: string,
  now: Date,
): Promise<{ invoice: Invoice; model: DocumentModel }> {
  const row = await loadInvoiceRow(db, scope, id);
  const invoice = await withLines(db, scope, row, utcDateOf(now));
  const draft = row.status === 'draft';
  // Invoices issued before sellers were frozen print the seller as it is now.
  const settings =
    row.seller_snapshot && row.customer_snapshot ? null : await getSettingsRow(db, scope);
  const seller =
    row.seller_snapshot ?? sellerSnapshot(settings!, (await getTenant(db, scope.tenantId)).name);
  const customer =
    draft || !invoice.customer
      ? customerSnapshot(await getCustomerRow(db, scope, row.customer_id), settings!)
      : invoice.customer;
  const model = invoiceDocumentModel(invoice, seller, customer, { draft, now });
  return { invoice, model };
}

function issuedOrPreview(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  id: string,
  format: 'ubl' | 'cii' | 'pdf',
  now: Date,
): Promise<StoredDocument> {
  return issuedDocument(db, renderer, scope, id, format, async () => {
    const { model } = await invoiceModel(db, scope, id, now);
    return model;
  });
}

/**
 * The invoice's PDF: a draft's preview (dated `now`, which only a draft needs), or the issued
 * invoice's stored document.
 */
export async function getInvoicePdf(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  id: string,
  now: Date,
): Promise<{ filename: string; pdf: Buffer }> {
  const { invoice, model } = await invoiceModel(db, scope, id, now);
  if (invoice.status === 'draft') {
    return { filename: `${invoice.id}-draft.pdf`, pdf: await renderer.renderPdf(model) };
  }
  const stored = await issuedOrPreview(db, renderer, scope, id, 'pdf', now);
  return {
    filename: documentFilename(invoice.number!, '.pdf'),
    pdf: (stored as { content: Buffer }).content,
  };
}

/** The issued invoice's e-invoice (UBL or CII); 409 for drafts and for incomplete data. */
export async function getInvoiceEinvoice(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  id: string,
  format: 'ubl' | 'cii',
  now: Date,
): Promise<{ filename: string; xml: Buffer }> {
  const row = await loadInvoiceRow(db, scope, id);
  if (row.status === 'draft') {
    throw new StateInvalidError('A draft has no e-invoice; issue it first.');
  }
  const stored = await issuedOrPreview(db, renderer, scope, id, format, now);
  if ('missing' in stored) {
    const { model } = await invoiceModel(db, scope, id, now);
    throw einvoiceRefusal(stored.missing, model, { syntax: format });
  }
  return { filename: documentFilename(row.number!, `-${format}.xml`), xml: stored.content };
}

/** Which documents of the issued invoice exist: the PDF, and the e-invoices its data allow. */
export function issuedInvoiceFormats(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  id: string,
  now: Date,
): Promise<Set<DocumentFormat>> {
  return issuedDocumentFormats(db, renderer, scope, id, async () => {
    const { model } = await invoiceModel(db, scope, id, now);
    return model;
  });
}

/**
 * Renders and stores an issued invoice's documents right after the issue committed, before
 * it is answered, from what the issue froze (`invoice` and its seller). Should that fail (the
 * process stopping, say), the first reader renders them from the same frozen data, as read
 * back: the issue itself stands.
 */
export async function renderIssuedInvoice(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  invoice: Invoice,
  seller: SellerSnapshot,
): Promise<void> {
  const model = invoiceDocumentModel(invoice, seller, invoice.customer!, { draft: false });
  await renderIssued(db, renderer, scope, invoice.id, model).catch(() => undefined);
}
