// An issued invoice or credit note (or a draft's preview) as a PDF/A-3b document: a pure
// function of the document model, so the same model always gives the same bytes. With the
// document's CII XML it is a Factur-X / ZUGFeRD hybrid (profile EN 16931).
import { withDocumentText } from '../document-text.ts';
import { t } from '../i18n.ts';
import type { DocumentModel } from '../model.ts';
import { createArchiveDocument } from './archive.ts';
import { documentTitle, drawHeading } from './heading.ts';
import { drawLinesTable } from './lines-table.ts';
import { drawPageFurniture } from './page-furniture.ts';
import { drawNote, drawPayment } from './payment.ts';
import { Sheet } from './sheet.ts';
import { drawTaxSummary } from './tax-summary.ts';

export interface PdfAttachments {
  /** The document's UN/CEFACT CII XML (EN 16931), embedded as factur-x.xml. */
  facturX?: string;
}

export async function renderPdf(
  given: DocumentModel,
  attachments: PdfAttachments = {},
): Promise<Buffer> {
  // What XML cannot carry is shown as the e-invoice shows it (document-text.ts).
  const model = withDocumentText(given);
  assertTotalsAddUp(model);
  if (model.draft && attachments.facturX !== undefined) {
    throw new RangeError('a draft is never an e-invoice');
  }
  const title = documentTitle(model);
  const xmpTitle = model.number
    ? `${title} ${model.number}`
    : `${title} (${t(model.locale, 'document.draft')})`;
  const doc = createArchiveDocument(model, { title: xmpTitle, facturX: attachments.facturX });
  const bytes = collect(doc);

  const sheet = new Sheet(doc);
  sheet.addPage();
  drawHeading(sheet, model);
  drawLinesTable(sheet, model);
  drawTaxSummary(sheet, model);
  drawPayment(sheet, model);
  drawNote(sheet, model);
  drawPageFurniture(sheet, model, title);

  doc.end();
  return bytes;
}

function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

/**
 * A document whose printed numbers would not add up is refused rather than printed: the lines'
 * net amounts make the total excluding VAT, the rates' tax makes the VAT, and so on down to
 * the amount due.
 */
export function assertTotalsAddUp(model: DocumentModel): void {
  const { totals } = model;
  const sum = (values: number[]) => values.reduce((total, value) => total + BigInt(value), 0n);
  const checks: [string, bigint, bigint][] = [
    ['subtotal', sum(model.lines.map((line) => line.amount)), BigInt(totals.subtotal)],
    [
      'totalExcludingTax',
      sum(model.lines.map((line) => line.netAmount)),
      BigInt(totals.totalExcludingTax),
    ],
    ['tax', sum(model.taxBreakdown.map((entry) => entry.taxAmount)), BigInt(totals.tax)],
    ['total', BigInt(totals.totalExcludingTax) + BigInt(totals.tax), BigInt(totals.total)],
    ['amountDue', BigInt(totals.total) - BigInt(totals.prepaid), BigInt(totals.amountDue)],
  ];
  for (const [field, expected, actual] of checks) {
    if (expected !== actual) {
      throw new RangeError(
        `document ${model.id}: totals.${field} is ${actual}, expected ${expected}`,
      );
    }
  }
}
