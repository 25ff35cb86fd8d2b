// The hosted invoice page's rules: a token opens one issued invoice while its link works
// (./links.ts), and shows it as it is now, with downloads of its stored documents, the very
// bytes the API serves, and of those of its credit notes that are not void. A credit note's
// documents are found through the invoice the token opens, by the credit note's number among
// that invoice's credit notes: a token never reaches another invoice's credit note, and gets a
// credit note's e-invoice only in a syntax the page offers the invoice's own in. A void invoice
// keeps its page, which says it is void: the customer learns that it need not be paid. Anything a token does not open is null, and the page
// answers it with the same 404, whatever the reason.
import type { Clock } from '../clock.ts';
import { creditNoteSubject, issuedCreditNotesOf } from '../credit-notes/documents.ts';
import type { Db } from '../db/pool.ts';
import type { DocumentFormat, IssuedDocuments } from '../documents/service.ts';
import { EinvoiceIncompleteError } from '../errors.ts';
import {
  getInvoiceEinvoice,
  getInvoicePdf,
  invoiceModel,
  issuedInvoiceFormats,
} from '../invoices/service.ts';
import type { HostedLinks } from './links.ts';
import { pageView } from './page.ts';
import type { PageView } from './page-view.ts';

export interface HostedPageDeps {
  db: Db;
  clock: Clock;
  documents: IssuedDocuments;
  links: HostedLinks;
}

/** The page a token opens, or null. */
export async function hostedInvoicePage(
  deps: HostedPageDeps,
  token: string,
): Promise<PageView | null> {
  const link = await deps.links.resolve(deps.db, token);
  if (!link) return null;
  const now = deps.clock.now();
  const { invoice, model } = await invoiceModel(deps.db, link.scope, link.invoiceId, now);
  const formats = await issuedInvoiceFormats(deps.db, deps.documents, link.scope, invoice.id, now);
  const creditNotes = [];
  for (const note of await issuedCreditNotesOf(deps.db, link.scope, invoice.id)) {
    const subject = creditNoteSubject(link.scope, note);
    const noteFormats = await deps.documents.formats(deps.db, link.scope, subject);
    creditNotes.push({ ...note, formats: noteFormats });
  }
  // Download links are relative to the page, so that a path prefix of PUBLIC_URL is kept.
  return pageView(invoice, model, { formats, downloadBase: token, creditNotes });
}

export interface HostedDocument {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** A PDF as a download. */
function pdfDocument({ filename, pdf }: { filename: string; pdf: Buffer }): HostedDocument {
  return { filename, contentType: 'application/pdf', content: pdf };
}

/** An e-invoice as a download, or null when the data do not make one. */
async function einvoiceDocument(
  read: Promise<{ filename: string; xml: Buffer }>,
): Promise<HostedDocument | null> {
  try {
    const { filename, xml } = await read;
    return { filename, contentType: 'application/xml', content: xml };
  } catch (error) {
    if (error instanceof EinvoiceIncompleteError) return null;
    throw error;
  }
}

/** One stored document of the invoice a token opens, or null (also: no such e-invoice). */
export async function hostedInvoiceDocument(
  deps: HostedPageDeps,
  token: string,
  format: DocumentFormat,
): Promise<HostedDocument | null> {
  const link = await deps.links.resolve(deps.db, token);
  if (!link) return null;
  const { db, documents } = deps;
  const now = deps.clock.now();
  if (format === 'pdf') {
    return pdfDocument(await getInvoicePdf(db, documents, link.scope, link.invoiceId, now));
  }
  return einvoiceDocument(
    getInvoiceEinvoice(db, documents, link.scope, link.invoiceId, format, now),
  );
}

/**
 * A stored document of one of the credit notes (not void) of the invoice a token opens, by the
 * credit note's number, or null: no such credit note of this invoice, or no such e-invoice.
 */
export async function hostedCreditNoteDocument(
  deps: HostedPageDeps,
  token: string,
  number: string,
  format: DocumentFormat,
): Promise<HostedDocument | null> {
  const { db, documents, links } = deps;
  const link = await links.resolve(db, token);
  if (!link) return null;
  const notes = await issuedCreditNotesOf(db, link.scope, link.invoiceId);
  const note = notes.find((n) => n.number === number);
  if (!note) return null;
  const subject = creditNoteSubject(link.scope, note);
  if (format === 'pdf') return pdfDocument(await documents.pdf(db, link.scope, subject));
  // What the page offers (./page.ts, creditNoteRows), and nothing more.
  const now = deps.clock.now();
  const offered = await issuedInvoiceFormats(db, documents, link.scope, link.invoiceId, now);
  if (!offered.has(format)) return null;
  return einvoiceDocument(documents.einvoice(db, link.scope, subject, format));
}

/** The hosted page's service, bound once by the composition root (src/composition.ts). */
export function createHostedPage(deps: HostedPageDeps) {
  return {
    page: (token: string) => hostedInvoicePage(deps, token),
    invoiceDocument: (token: string, format: DocumentFormat) =>
      hostedInvoiceDocument(deps, token, format),
    creditNoteDocument: (token: string, number: string, format: DocumentFormat) =>
      hostedCreditNoteDocument(deps, token, number, format),
  };
}

export type HostedPage = ReturnType<typeof createHostedPage>;
