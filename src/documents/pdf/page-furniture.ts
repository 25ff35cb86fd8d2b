// What every page carries, drawn once the page count is known: the footer (seller, "Page n of
// m"), a running header on continuation pages, and on a draft the draft marking across the
// page and in the footer.
import { t } from '../i18n.ts';
import type { DocumentModel } from '../model.ts';
import { COLOR, CONTENT, MARGIN, PAGE, type TextStyle } from './geometry.ts';
import type { Sheet } from './sheet.ts';

const FOOTER: TextStyle = { size: 7.5, color: COLOR.muted };
const RUNNING: TextStyle = { size: 8, color: COLOR.muted };

export function drawPageFurniture(sheet: Sheet, model: DocumentModel, title: string): void {
  const { doc } = sheet;
  const { locale } = model;
  const range = doc.bufferedPageRange();
  const pages = range.count;
  const footerY = PAGE.height - MARGIN.bottom + 24;
  const half = CONTENT.width / 2;
  const draft = t(locale, 'document.draft');
  const heading = model.number ? `${title} ${model.number}` : `${title} · ${draft}`;

  for (let index = 0; index < pages; index++) {
    doc.switchToPage(range.start + index);
    const page = index + 1;
    if (model.draft) drawDraftMark(sheet, draft);

    if (page > 1) {
      const y = MARGIN.top - 26;
      sheet.line(model.seller.name, CONTENT.left, y, half, { ...RUNNING, bold: true });
      sheet.line(heading, CONTENT.left + half, y, half, RUNNING, 'right');
      sheet.rule(CONTENT.left, CONTENT.right, y + 14);
    }

    sheet.rule(CONTENT.left, CONTENT.right, footerY - 6);
    sheet.line(model.seller.name, CONTENT.left, footerY, half - 40, FOOTER);
    if (model.draft) {
      sheet.line(
        draft,
        CONTENT.left + half - 40,
        footerY,
        80,
        { ...FOOTER, bold: true, color: COLOR.draft },
        'center',
      );
    }
    const pageOf = t(locale, 'document.pageOf', { page, pages });
    sheet.line(pageOf, CONTENT.left + half + 40, footerY, half - 40, FOOTER, 'right');
  }
}

/** The draft word diagonally across the page, faint enough to read the document through it. */
function drawDraftMark(sheet: Sheet, word: string): void {
  const { doc } = sheet;
  const style: TextStyle = { size: 96, bold: true, color: COLOR.draft };
  const width = sheet.widthOf(word, style);
  // Scale down long words (BORRADOR, BROUILLON) so that they stay on the page.
  const size = Math.min(96, (96 * 560) / width);
  const centerX = PAGE.width / 2;
  const centerY = PAGE.height / 2;
  doc.save();
  doc.rotate(-50, { origin: [centerX, centerY] });
  doc.fillOpacity(0.09);
  const lineHeight = sheet.lineHeight({ ...style, size });
  sheet.line(word, centerX - 400, centerY - lineHeight / 2, 800, { ...style, size }, 'center');
  doc.restore();
}
