// How to pay (the payment terms beside the seller's bank details) and the document's note.
import { t } from '../i18n.ts';
import type { DocumentModel } from '../model.ts';
import { COLOR, CONTENT, type TextStyle } from './geometry.ts';
import type { Sheet } from './sheet.ts';

const HEADING: TextStyle = { size: 9.5, bold: true };
const BODY: TextStyle = { size: 9 };
const LABEL: TextStyle = { size: 8.5, color: COLOR.muted };
const COLUMN_GAP = 24;
const LABEL_WIDTH = 88;
// The bank details get the wider column: an IBAN (up to 34 characters) stays on one line.
const TERMS_SHARE = 0.42;

/** DE89370400440532013000 → "DE89 3704 0044 0532 0130 00", as printed on paper (ISO 13616). */
export function groupIban(iban: string): string {
  return iban
    .replace(/\s+/g, '')
    .toUpperCase()
    .replace(/(.{4})(?=.)/g, '$1 ');
}

export function drawPayment(sheet: Sheet, model: DocumentModel): void {
  // A credit note asks for no payment: the seller's bank details would only invite one.
  const invoice = model.kind === 'invoice';
  const details = invoice ? paymentDetails(model) : [];
  const terms = model.paymentTerms;
  const instructions = invoice ? model.payment.instructions : null;
  if (!terms && details.length === 0 && !instructions) return;

  const both = Boolean(terms) && (details.length > 0 || Boolean(instructions));
  const termsWidth = both ? (CONTENT.width - COLUMN_GAP) * TERMS_SHARE : CONTENT.width;
  const columnWidth = both ? CONTENT.width - COLUMN_GAP - termsWidth : CONTENT.width;
  const detailsLeft = both ? CONTENT.left + termsWidth + COLUMN_GAP : CONTENT.left;
  const headingHeight = sheet.lineHeight(HEADING) + 3;
  const valueWidth = columnWidth - LABEL_WIDTH - 6;

  const termsHeight = terms ? headingHeight + sheet.heightOf(terms, termsWidth, BODY) : 0;
  let detailsHeight = headingHeight;
  const rowHeight = (label: string, value: string, oneLine: boolean) =>
    Math.max(
      sheet.heightOf(label, LABEL_WIDTH, LABEL),
      oneLine ? sheet.lineHeight(BODY) : sheet.heightOf(value, valueWidth, BODY),
    ) + 2;
  for (const [label, value, oneLine] of details) detailsHeight += rowHeight(label, value, oneLine);
  if (instructions) detailsHeight += sheet.heightOf(instructions, columnWidth, BODY) + 3;
  sheet.ensureSpace(Math.max(termsHeight, detailsHeight));

  const top = sheet.y;
  if (terms) {
    sheet.paragraph(t(model.locale, 'payment.terms'), CONTENT.left, top, termsWidth, HEADING);
    sheet.paragraph(terms, CONTENT.left, top + headingHeight, termsWidth, BODY);
  }
  if (details.length > 0 || instructions) {
    let y = top;
    sheet.paragraph(t(model.locale, 'payment.details'), detailsLeft, y, columnWidth, HEADING);
    y += headingHeight;
    const valueLeft = detailsLeft + LABEL_WIDTH + 6;
    for (const [label, value, oneLine] of details) {
      sheet.paragraph(label, detailsLeft, y + 0.5, LABEL_WIDTH, LABEL);
      if (oneLine) sheet.line(value, valueLeft, y, valueWidth, BODY);
      else sheet.paragraph(value, valueLeft, y, valueWidth, BODY);
      y += rowHeight(label, value, oneLine);
    }
    if (instructions) sheet.paragraph(instructions, detailsLeft, y + 3, columnWidth, BODY);
  }
  sheet.y = top + Math.max(termsHeight, detailsHeight) + 14;
}

/** [label, value, printed on one line (shrunk rather than wrapped)]. */
type DetailRow = [string, string, boolean];

function paymentDetails(model: DocumentModel): DetailRow[] {
  const { locale, payment } = model;
  const rows: DetailRow[] = [];
  if (!payment.iban && !payment.bic) return rows;
  const holder = payment.accountName ?? model.seller.name;
  rows.push([t(locale, 'payment.accountName'), holder, false]);
  if (payment.iban) rows.push([t(locale, 'payment.iban'), groupIban(payment.iban), true]);
  if (payment.bic) rows.push([t(locale, 'payment.bic'), payment.bic, true]);
  // Only an issued invoice has a number a transfer can quote.
  if (model.number) {
    rows.push([t(locale, 'payment.reference'), model.number, false]);
  }
  return rows;
}

export function drawNote(sheet: Sheet, model: DocumentModel): void {
  if (!model.note) return;
  const headingHeight = sheet.lineHeight(HEADING) + 3;
  sheet.ensureSpace(headingHeight + 2 * sheet.lineHeight(BODY));
  sheet.paragraph(t(model.locale, 'note.heading'), CONTENT.left, sheet.y, CONTENT.width, HEADING);
  sheet.y += headingHeight;
  sheet.flow(model.note, BODY);
  sheet.y += 10;
}
