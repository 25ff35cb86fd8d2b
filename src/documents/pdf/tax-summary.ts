// The VAT breakdown (one row per rate: category, rate, taxable amount, tax, and the legal text
// of exempt and reverse-charge supplies) and the totals, which add up as printed: total
// excluding VAT + VAT = total; total − paid in advance = amount due.
import { formatAmount, formatPercentage, t } from '../i18n.ts';
import type { DocumentLocale, DocumentModel, TaxBreakdownEntry, VatCategory } from '../model.ts';
import { COLOR, CONTENT, MARGIN, TABLE, type TextStyle } from './geometry.ts';
import type { Sheet } from './sheet.ts';

// EN 16931 (BR-AE-05, BR-E-05, BR-IC-05, BR-G-05, BR-Z-05, BR-O-05): these categories carry no
// VAT, so the document shows 0 % whatever rate the tax rate object was created with; a
// reverse-charge supply must never show the domestic rate.
const UNTAXED = new Set<VatCategory>(['AE', 'E', 'K', 'G', 'O', 'Z']);

export function printedRate(entry: TaxBreakdownEntry, locale: DocumentLocale): string {
  return formatPercentage(UNTAXED.has(entry.category) ? '0' : entry.percentage, locale);
}

const { padX: PAD_X, padY: PAD_Y, header: HEADER, cell: CELL } = TABLE;
const REASON: TextStyle = { size: 7.5, color: COLOR.muted };
const AMOUNT_WIDTH = 100;
const RATE_WIDTH = 60;
const CATEGORY_WIDTH = CONTENT.width - RATE_WIDTH - 2 * AMOUNT_WIDTH;

const HEADING: TextStyle = { size: 9.5, bold: true };
const TOTAL: TextStyle = { size: 9, bold: true };
const DUE: TextStyle = { size: 11, bold: true, color: COLOR.accent };

/** A block measured before it is drawn, so that blocks can be kept on one page. */
interface Block {
  height: number;
  draw(): void;
}

/** The breakdown and the totals, on one page whenever they fit on one. */
export function drawTaxSummary(sheet: Sheet, model: DocumentModel): void {
  const blocks = [breakdown(sheet, model), totalsBlock(sheet, model)];
  const together = blocks.reduce((sum, block) => sum + block.height, 0);
  if (together <= CONTENT.bottom - MARGIN.top) sheet.ensureSpace(together);
  for (const block of blocks) block.draw();
}

const GAP = 10;

function breakdown(sheet: Sheet, model: DocumentModel): Block {
  if (model.taxBreakdown.length === 0) return { height: 0, draw: () => undefined };
  const { locale, currency } = model;
  const widths = [CATEGORY_WIDTH, RATE_WIDTH, AMOUNT_WIDTH, AMOUNT_WIDTH];
  const header = ['vat.category', 'vat.rate', 'vat.taxableAmount', 'vat.tax'] as const;
  const headerHeight = sheet.lineHeight(HEADER) + 2 * PAD_Y;
  const headingHeight = sheet.lineHeight(HEADING) + 4;
  const textWidth = CATEGORY_WIDTH - 2 * PAD_X;
  const rows = model.taxBreakdown.map((entry) => {
    const category = t(locale, `vat.category.${entry.category}` as const);
    const reason = entry.exemptionReason;
    const height =
      sheet.heightOf(category, textWidth, CELL) +
      (reason ? sheet.heightOf(reason, textWidth, REASON) + 1 : 0) +
      2 * PAD_Y;
    const numbers = [
      printedRate(entry, locale),
      formatAmount(entry.taxableAmount, currency, locale),
      formatAmount(entry.taxAmount, currency, locale),
    ];
    return { category, reason, numbers, height };
  });

  const drawHeader = () => {
    sheet.fill(CONTENT.left, sheet.y, CONTENT.width, headerHeight, COLOR.fill);
    let x = CONTENT.left;
    header.forEach((id, i) => {
      const align = i === 0 ? 'left' : 'right';
      sheet.line(t(locale, id), x + PAD_X, sheet.y + PAD_Y, widths[i]! - 2 * PAD_X, HEADER, align);
      x += widths[i]!;
    });
    sheet.y += headerHeight;
  };

  const draw = () => {
    sheet.ensureSpace(headingHeight + headerHeight + rows[0]!.height);
    sheet.paragraph(t(locale, 'vat.heading'), CONTENT.left, sheet.y, CONTENT.width, HEADING);
    sheet.y += headingHeight;
    drawHeader();
    for (const row of rows) {
      if (sheet.ensureSpace(row.height)) drawHeader();
      let y = sheet.y + PAD_Y;
      y += sheet.paragraph(row.category, CONTENT.left + PAD_X, y, textWidth, CELL);
      if (row.reason) sheet.paragraph(row.reason, CONTENT.left + PAD_X, y + 1, textWidth, REASON);
      let x = CONTENT.left + CATEGORY_WIDTH;
      row.numbers.forEach((text, i) => {
        const width = widths[i + 1]!;
        sheet.line(text, x + PAD_X, sheet.y + PAD_Y, width - 2 * PAD_X, CELL, 'right');
        x += width;
      });
      sheet.y += row.height;
      sheet.rule(CONTENT.left, CONTENT.right, sheet.y, COLOR.faint);
    }
    sheet.y += GAP;
  };
  const rowsHeight = rows.reduce((sum, row) => sum + row.height, 0);
  return { height: headingHeight + headerHeight + rowsHeight + GAP, draw };
}

function totalsBlock(sheet: Sheet, model: DocumentModel): Block {
  const { locale, currency, totals } = model;
  const money = (amount: number) => formatAmount(amount, currency, locale);
  const rows: [string, string, TextStyle][] = [
    [t(locale, 'totals.excludingTax'), money(totals.totalExcludingTax), CELL],
    [t(locale, 'totals.tax'), money(totals.tax), CELL],
    [t(locale, 'totals.total'), money(totals.total), TOTAL],
  ];
  if (totals.prepaid !== 0) rows.push([t(locale, 'totals.prepaid'), money(-totals.prepaid), CELL]);
  const dueLabel = t(locale, 'totals.amountDue', { kind: model.kind });

  const width = 2 * AMOUNT_WIDTH + 70;
  const left = CONTENT.right - width;
  const labelWidth = width - AMOUNT_WIDTH;
  const rowHeight = sheet.lineHeight(CELL) + 3;
  const dueHeight = sheet.lineHeight(DUE) + 8;
  const height = rows.length * rowHeight + 7 + dueHeight;

  const draw = () => {
    sheet.ensureSpace(height);
    for (const [label, value, style] of rows) {
      sheet.line(label, left + PAD_X, sheet.y, labelWidth - 2 * PAD_X, style);
      sheet.line(value, left + labelWidth, sheet.y, AMOUNT_WIDTH - PAD_X, style, 'right');
      sheet.y += rowHeight;
    }
    sheet.y += 2;
    sheet.rule(left, CONTENT.right, sheet.y, COLOR.text, 0.8);
    sheet.y += 5;
    sheet.line(dueLabel, left + PAD_X, sheet.y, labelWidth - 2 * PAD_X, DUE);
    const due = money(totals.amountDue);
    sheet.line(due, left + labelWidth, sheet.y, AMOUNT_WIDTH - PAD_X, DUE, 'right');
    sheet.y += dueHeight + GAP;
  };
  return { height: height + GAP, draw };
}
