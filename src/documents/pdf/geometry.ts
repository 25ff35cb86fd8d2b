// A4 geometry and the house typography: the page, its margins, the colours and the tables'
// text, which the sections and the hosted page's helpers share. Apart from the sheet
// (./sheet.ts), so that what only formats text for a document (the hosted page's use of
// ./heading.ts and others) does not load the fonts and their shaping library.

export const PAGE = { width: 595.28, height: 841.89 } as const;
// The top margin leaves room for the running header of continuation pages, the bottom one for
// the footer; both are drawn in the margins once the page count is known.
export const MARGIN = { top: 66, bottom: 72, left: 50, right: 50 } as const;
export const CONTENT = {
  left: MARGIN.left,
  right: PAGE.width - MARGIN.right,
  width: PAGE.width - MARGIN.left - MARGIN.right,
  bottom: PAGE.height - MARGIN.bottom,
} as const;

export const COLOR = {
  text: '#1b1f24',
  muted: '#5c6570',
  rule: '#cfd5dc',
  faint: '#e6e9ed',
  fill: '#f1f3f5',
  accent: '#1f3a5f',
  draft: '#b3261e',
} as const;

export interface TextStyle {
  size: number;
  bold?: boolean;
  color?: string;
}

export type Align = 'left' | 'right' | 'center';

/** The tables (the lines, the VAT breakdown) alike: a cell's padding, header and body text. */
export const TABLE: { padX: number; padY: number; header: TextStyle; cell: TextStyle } = {
  padX: 4,
  padY: 3.5,
  header: { size: 7.5, bold: true, color: COLOR.muted },
  cell: { size: 8.5 },
};
