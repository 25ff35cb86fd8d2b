// The head of the first page: the seller's letterhead and the document's title, then the buyer
// beside the document's facts (number, dates, references) and, on a credit note, the invoice
// it corrects and why.
import { countryName, formatDate, formatPeriod, t } from '../i18n.ts';
import type { DocumentLocale, DocumentModel, Party, PostalAddress } from '../model.ts';
import { COLOR, CONTENT, type TextStyle } from './geometry.ts';
import type { Sheet } from './sheet.ts';

const FIRST_PAGE_TOP = 44;
const SMALL: TextStyle = { size: 8.5, color: COLOR.muted };
const BODY: TextStyle = { size: 9 };

export function documentTitle(model: DocumentModel): string {
  return t(model.locale, model.kind === 'credit_note' ? 'document.creditNote' : 'document.invoice');
}

export function drawHeading(sheet: Sheet, model: DocumentModel): void {
  const { locale, seller } = model;
  sheet.y = FIRST_PAGE_TOP;

  const titleWidth = 250;
  const titleStyle: TextStyle = { size: 22, bold: true, color: COLOR.accent };
  sheet.line(
    documentTitle(model),
    CONTENT.right - titleWidth,
    sheet.y,
    titleWidth,
    titleStyle,
    'right',
  );
  let rightY = sheet.y + sheet.lineHeight(titleStyle);
  if (model.draft) {
    const notice = t(locale, 'document.draftNotice', { kind: model.kind });
    const style: TextStyle = { size: 9.5, bold: true, color: COLOR.draft };
    sheet.line(notice, CONTENT.right - titleWidth, rightY, titleWidth, style, 'right');
    rightY += sheet.lineHeight(style);
  }

  const letterheadWidth = CONTENT.width - titleWidth - 20;
  let leftY = sheet.y;
  leftY += sheet.paragraph(seller.name, CONTENT.left, leftY, letterheadWidth, {
    size: 13,
    bold: true,
  });
  leftY += 2;
  for (const text of [...addressLines(seller.address, locale), ...identityLines(seller, locale)]) {
    leftY += sheet.paragraph(text, CONTENT.left, leftY, letterheadWidth, SMALL);
  }

  sheet.y = Math.max(leftY, rightY) + 12;
  sheet.rule(CONTENT.left, CONTENT.right, sheet.y);
  sheet.y += 14;
  drawBuyerAndFacts(sheet, model);
  if (model.kind === 'credit_note') drawCorrectedInvoice(sheet, model);
}

function drawBuyerAndFacts(sheet: Sheet, model: DocumentModel): void {
  const { locale, buyer } = model;
  const top = sheet.y;
  const buyerWidth = 250;

  let leftY = top;
  const heading = t(locale, 'party.buyer').toLocaleUpperCase(locale);
  leftY += sheet.paragraph(heading, CONTENT.left, leftY, buyerWidth, {
    size: 7.5,
    bold: true,
    color: COLOR.muted,
  });
  leftY += 2;
  leftY += sheet.paragraph(buyer.name, CONTENT.left, leftY, buyerWidth, { size: 10.5, bold: true });
  for (const text of [...addressLines(buyer.address, locale), ...taxIdLines(buyer, locale)]) {
    leftY += sheet.paragraph(text, CONTENT.left, leftY, buyerWidth, BODY);
  }

  const factsLeft = CONTENT.left + buyerWidth + 30;
  const labelWidth = 100;
  const valueLeft = factsLeft + labelWidth + 8;
  const valueWidth = CONTENT.right - valueLeft;
  let rightY = top + 11;
  for (const [label, value] of documentFacts(model)) {
    const labelHeight = sheet.paragraph(label, factsLeft, rightY + 0.5, labelWidth, SMALL);
    const valueHeight = sheet.paragraph(value, valueLeft, rightY, valueWidth, BODY);
    rightY += Math.max(labelHeight, valueHeight) + 2;
  }
  sheet.y = Math.max(leftY, rightY) + 14;
}

/** The document's facts as [label, value]: number, dates, references. */
export function documentFacts(model: DocumentModel): [string, string][] {
  const { locale } = model;
  const date = (iso: string) => formatDate(iso, locale);
  const rows: [string, string][] = [];
  if (model.number) rows.push([t(locale, 'fact.number'), model.number]);
  rows.push([t(locale, 'fact.issueDate'), date(model.issueDate)]);
  if (model.dueDate) rows.push([t(locale, 'fact.dueDate'), date(model.dueDate)]);
  if (model.servicePeriod) {
    rows.push([t(locale, 'fact.servicePeriod'), formatPeriod(model.servicePeriod, locale)]);
  } else if (model.supplyDate) {
    rows.push([t(locale, 'fact.supplyDate'), date(model.supplyDate)]);
  }
  if (model.buyerReferenceGiven) {
    rows.push([t(locale, 'fact.buyerReference'), model.buyerReferenceGiven]);
  }
  if (model.purchaseOrder) rows.push([t(locale, 'fact.purchaseOrder'), model.purchaseOrder]);
  return rows;
}

function drawCorrectedInvoice(sheet: Sheet, model: DocumentModel): void {
  const { locale, creditedInvoice, creditReason } = model;
  const lines: [string, TextStyle][] = [];
  if (creditedInvoice) {
    const corrects = t(locale, 'credit.corrects', {
      number: creditedInvoice.number,
      date: formatDate(creditedInvoice.issueDate, locale),
    });
    lines.push([corrects, { size: 10, bold: true }]);
  }
  if (creditReason) {
    const reason = t(locale, `credit.reason.${creditReason}` as const);
    lines.push([t(locale, 'credit.reason', { reason }), BODY]);
  }
  for (const [text, style] of lines) {
    sheet.y += sheet.paragraph(text, CONTENT.left, sheet.y, CONTENT.width, style) + 2;
  }
  if (lines.length > 0) sheet.y += 10;
}

export function addressLines(address: PostalAddress | null, locale: DocumentLocale): string[] {
  if (!address) return [];
  const place = [address.postalCode, address.city].filter(Boolean).join(' ');
  const country = address.country ? countryName(address.country, locale) : null;
  return [address.line1, address.line2, place, address.state, country].filter(
    (line): line is string => Boolean(line),
  );
}

/** The VAT id first, then every other tax id with its type ("Tax ID (US EIN) 12-3456789"). */
export function taxIdLines(party: Party, locale: DocumentLocale): string[] {
  const lines = party.vatId ? [`${t(locale, 'party.vatId')} ${party.vatId}`] : [];
  for (const { type, value } of party.taxIds) {
    if (value === party.vatId) continue;
    const label = type.endsWith('_vat')
      ? t(locale, 'party.vatId')
      : `${t(locale, 'party.taxId')} (${type.replace(/_/g, ' ').toUpperCase()})`;
    lines.push(`${label} ${value}`);
  }
  return lines;
}

export function identityLines(seller: Party, locale: DocumentLocale): string[] {
  const lines = taxIdLines(seller, locale);
  if (seller.companyRegistration) {
    lines.push(`${t(locale, 'party.companyRegistration')} ${seller.companyRegistration}`);
  }
  if (seller.email) lines.push(`${t(locale, 'party.email')} ${seller.email}`);
  return lines;
}
