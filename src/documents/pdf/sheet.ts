// The sheet the sections draw on: text helpers that pass every string through the font
// fallback, never let a number overflow its column, and start a new page when a block does not
// fit, on the A4 geometry and in the house typography of ./geometry.ts.
import { asFontSource, fontFaces, printable, printableLine } from './fonts.ts';
import { COLOR, CONTENT, MARGIN, type Align, type TextStyle } from './geometry.ts';

const SMALLEST_SIZE = 5;

export class Sheet {
  readonly doc: PDFKit.PDFDocument;
  /** Where the next block starts on the current page. */
  y: number = MARGIN.top;
  private readonly fonts: { regular: string; bold: string };

  constructor(doc: PDFKit.PDFDocument) {
    this.doc = doc;
    // Fonts are registered under their PostScript names: pdfkit keeps the fonts of a document
    // by that name, so the regular face, already the document's default font (archive.ts), is
    // found again at once instead of being opened and compared on every switch of weight.
    const { regular, bold } = fontFaces();
    this.fonts = { regular: regular.postscriptName, bold: bold.postscriptName };
    doc.registerFont(this.fonts.regular, asFontSource(regular));
    doc.registerFont(this.fonts.bold, asFontSource(bold));
  }

  addPage(): void {
    this.doc.addPage({ size: 'A4', margins: { ...MARGIN } });
    this.y = MARGIN.top;
  }

  /** Starts a new page unless `height` more points fit on this one; true when it did. */
  ensureSpace(height: number): boolean {
    if (this.y + height <= CONTENT.bottom) return false;
    this.addPage();
    return true;
  }

  private use(style: TextStyle): void {
    this.doc
      .font(style.bold ? this.fonts.bold : this.fonts.regular)
      .fontSize(style.size)
      .fillColor(style.color ?? COLOR.text);
  }

  /** The height of `text` wrapped in a box `width` wide. */
  heightOf(text: string, width: number, style: TextStyle): number {
    this.use(style);
    return this.doc.heightOfString(printable(text), { width });
  }

  widthOf(text: string, style: TextStyle): number {
    this.use(style);
    return this.doc.widthOfString(printableLine(text));
  }

  lineHeight(style: TextStyle): number {
    this.use(style);
    return this.doc.currentLineHeight();
  }

  /** Wrapped text in a box at (x, y), `width` wide; returns its height. */
  paragraph(
    text: string,
    x: number,
    y: number,
    width: number,
    style: TextStyle,
    align: Align = 'left',
  ): number {
    const printed = printable(text);
    this.use(style);
    const height = this.doc.heightOfString(printed, { width });
    this.doc.text(printed, x, y, { width, align });
    return height;
  }

  /** Text across the full width from the current position, continued on new pages as needed. */
  flow(text: string, style: TextStyle): void {
    this.use(style);
    this.doc.text(printable(text), CONTENT.left, this.y, { width: CONTENT.width });
    this.y = this.doc.y;
  }

  /**
   * One line in a box at (x, y), `width` wide. A line too wide for its box is set smaller
   * rather than wrapped or cut: an amount must be printed whole.
   */
  line(text: string, x: number, y: number, width: number, style: TextStyle, align: Align = 'left') {
    const printed = printableLine(text);
    let size = style.size;
    this.use(style);
    let textWidth = this.doc.widthOfString(printed);
    while (textWidth > width && size > SMALLEST_SIZE) {
      size = Math.max(SMALLEST_SIZE, size - 0.5);
      this.doc.fontSize(size);
      textWidth = this.doc.widthOfString(printed);
    }
    const left =
      align === 'left'
        ? x
        : align === 'right'
          ? x + width - textWidth
          : x + (width - textWidth) / 2;
    this.doc.text(printed, left, y, { lineBreak: false });
  }

  rule(x1: number, x2: number, y: number, color: string = COLOR.rule, thickness = 0.5): void {
    this.doc.moveTo(x1, y).lineTo(x2, y).lineWidth(thickness).strokeColor(color).stroke();
  }

  fill(x: number, y: number, width: number, height: number, color: string): void {
    this.doc.rect(x, y, width, height).fillColor(color).fill();
  }
}
