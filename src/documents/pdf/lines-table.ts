// The lines of the document: description (wrapped, with the period the line bills under it),
// quantity, unit, unit price, VAT rate and amount. A row never splits across pages; the header
// row repeats at the top of every page the table runs over.
import { formatAmount, formatPeriod, formatQuantity, t, unitName } from '../i18n.ts';
import type { DocumentLine, DocumentLocale, DocumentModel, TaxBreakdownEntry } from '../model.ts';
import { COLOR, CONTENT, TABLE, type Align, type TextStyle } from './geometry.ts';
import type { Sheet } from './sheet.ts';
import { printedRate } from './tax-summary.ts';

interface Column {
  width: number;
  align: Align;
}

const { padX: PAD_X, padY: PAD_Y, header: HEADER, cell: CELL } = TABLE;
const PERIOD: TextStyle = { size: 7.5, color: COLOR.muted };
const PERIOD_GAP = 1;

// Quantity, unit, unit price, VAT, amount; the description takes the rest of the width.
const NUMBERS: Column[] = [
  { width: 42, align: 'right' },
  { width: 44, align: 'left' },
  { width: 82, align: 'right' },
  { width: 44, align: 'right' },
  { width: 90, align: 'right' },
];
const DESCRIPTION_WIDTH = CONTENT.width - NUMBERS.reduce((sum, column) => sum + column.width, 0);
const COLUMNS: Column[] = [{ width: DESCRIPTION_WIDTH, align: 'left' }, ...NUMBERS];

export function drawLinesTable(sheet: Sheet, model: DocumentModel): void {
  const { locale } = model;
  const header = [
    t(locale, 'lines.description'),
    t(locale, 'lines.quantity'),
    t(locale, 'lines.unit'),
    t(locale, 'lines.unitPrice'),
    t(locale, 'lines.vatRate'),
    t(locale, 'lines.amount'),
  ];
  const headerHeight =
    Math.max(
      ...header.map((label, i) => sheet.heightOf(label, COLUMNS[i]!.width - 2 * PAD_X, HEADER)),
    ) +
    2 * PAD_Y;
  const rates = new Map(model.taxBreakdown.map((entry) => [entry.taxRateId, entry]));

  const drawHeader = () => {
    sheet.fill(CONTENT.left, sheet.y, CONTENT.width, headerHeight, COLOR.fill);
    let x = CONTENT.left;
    header.forEach((label, i) => {
      const { width, align } = COLUMNS[i]!;
      sheet.paragraph(label, x + PAD_X, sheet.y + PAD_Y, width - 2 * PAD_X, HEADER, align);
      x += width;
    });
    sheet.y += headerHeight;
  };

  const rows = model.lines.map((line) => cells(line, model, rates));
  const periods = model.lines.map((line) => line.period && formatPeriod(line.period, locale));
  const descriptionHeights = model.lines.map(({ description }) =>
    Math.max(
      sheet.heightOf(description, DESCRIPTION_WIDTH - 2 * PAD_X, CELL),
      sheet.lineHeight(CELL),
    ),
  );
  const heights = periods.map(
    (period, i) =>
      descriptionHeights[i]! +
      (period ? PERIOD_GAP + sheet.heightOf(period, DESCRIPTION_WIDTH - 2 * PAD_X, PERIOD) : 0) +
      2 * PAD_Y,
  );

  sheet.ensureSpace(headerHeight + (heights[0] ?? 0));
  drawHeader();
  rows.forEach((row, index) => {
    const height = heights[index]!;
    if (sheet.ensureSpace(height)) drawHeader();
    let x = CONTENT.left;
    row.forEach((text, i) => {
      const { width, align } = COLUMNS[i]!;
      const cellWidth = width - 2 * PAD_X;
      if (i === 0) sheet.paragraph(text, x + PAD_X, sheet.y + PAD_Y, cellWidth, CELL);
      else sheet.line(text, x + PAD_X, sheet.y + PAD_Y, cellWidth, CELL, align);
      x += width;
    });
    const period = periods[index];
    if (period) {
      const top = sheet.y + PAD_Y + descriptionHeights[index]! + PERIOD_GAP;
      sheet.paragraph(period, CONTENT.left + PAD_X, top, DESCRIPTION_WIDTH - 2 * PAD_X, PERIOD);
    }
    sheet.y += height;
    sheet.rule(CONTENT.left, CONTENT.right, sheet.y, COLOR.faint);
  });

  sheet.y += 6;
  if (model.pricesIncludeTax) {
    const note = t(locale, 'lines.pricesIncludeTax');
    sheet.ensureSpace(sheet.lineHeight({ size: 8 }));
    sheet.y += sheet.paragraph(note, CONTENT.left, sheet.y, CONTENT.width, {
      size: 8,
      color: COLOR.muted,
    });
  }
  sheet.y += 10;
}

/**
 * The unit price as printed: a line priced by tiers, packages or proration has no one unit
 * price (its amount says what it costs), so it shows a dash, as a line without tax does.
 */
export function printedUnitPrice(
  line: DocumentLine,
  currency: string,
  locale: DocumentLocale,
): string {
  return line.unitAmount === null ? '–' : formatAmount(line.unitAmount, currency, locale);
}

function cells(
  line: DocumentLine,
  model: DocumentModel,
  rates: Map<string, TaxBreakdownEntry>,
): string[] {
  const { locale, currency } = model;
  const vat = line.taxRateIds
    .map((id) => rates.get(id))
    .filter((entry): entry is TaxBreakdownEntry => entry !== undefined)
    .map((entry) => printedRate(entry, locale))
    .join(' + ');
  return [
    line.description,
    formatQuantity(line.quantity, locale),
    unitName(line.unitCode, line.quantity, locale),
    printedUnitPrice(line, currency, locale),
    vat || '–',
    formatAmount(line.amount, currency, locale),
  ];
}
