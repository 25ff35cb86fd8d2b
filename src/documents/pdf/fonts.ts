// The fonts embedded in every PDF, and what happens to text they cannot draw.
//
// Noto Sans regular and bold (SIL Open Font License 1.1: embedding allowed, fsType 0), from
// @expo-google-fonts/noto-sans: the full Google Fonts build, one TrueType file per weight with
// Latin including every Central and Eastern European letter, Greek, Cyrillic and Vietnamese.
// PDF/A forbids fonts that are not embedded, so the standard 14 fonts are never used.
//
// Text outside those scripts (CJK, Arabic, Hebrew, emoji, …) is not drawn with the font's
// .notdef box, which PDF/A-2/3 forbids and readers show as garbage. A second font for such
// scripts would add megabytes (a CJK font alone is 10 MB or more, and pdfkit lays out neither
// right-to-left text nor bidirectional runs), so instead each user-perceived character
// (grapheme) the fonts cannot draw becomes one U+FFFD REPLACEMENT CHARACTER, drawn from the
// font: visibly a placeholder, never a wrong letter, and extracted as U+FFFD by text tools.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';

const require = createRequire(import.meta.url);

export const REGULAR_FONT_PATH =
  require.resolve('@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf');
export const BOLD_FONT_PATH =
  require.resolve('@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf');

export const REPLACEMENT = '\uFFFD';

export interface FontFaces {
  regular: fontkit.Font;
  bold: fontkit.Font;
}

function openFace(file: string): fontkit.Font {
  const face = fontkit.create(readFileSync(file));
  if (!('hasGlyphForCodePoint' in face)) throw new Error(`${file} is a font collection`);
  shareLayouts(face);
  return face;
}

/** Shaped words kept per face; the cache starts afresh when full. */
const MAX_SHARED_LAYOUTS = 10_000;

/**
 * Shaping a word (OpenType substitution and positioning) was half of a render's time, and
 * documents repeat their words: labels, units, currency codes, names, dates. pdfkit keeps the
 * words it shaped for one document only; the face keeps them for the thread's life. pdfkit
 * scales a run's positions in place, so each call gets positions of its own (glyphs are only
 * read). The same text always shapes the same, so the bytes do not change. Measured with
 * `npm run bench:documents`, every render another document (median, 1 / 20 / 250 lines):
 * 8.9 / 15.8 / 88.7 ms without, 4.6 / 9.3 / 45.1 ms with; at most 10,000 words a face.
 */
function shareLayouts(face: fontkit.Font): void {
  const shape = face.layout.bind(face);
  const runs = new Map<string, fontkit.GlyphRun>();
  face.layout = (text: string, ...options: unknown[]) => {
    if (options.some((option) => option !== undefined)) {
      return (shape as (...args: unknown[]) => fontkit.GlyphRun)(text, ...options);
    }
    let run = runs.get(text);
    if (run === undefined) {
      if (runs.size >= MAX_SHARED_LAYOUTS) runs.clear();
      run = shape(text);
      runs.set(text, run);
    }
    const copy = Object.create(Object.getPrototypeOf(run) as object) as fontkit.GlyphRun;
    return Object.assign(copy, run, {
      positions: run.positions.map((position) => ({ ...position })),
    });
  };
}

let faces: FontFaces | undefined;
/**
 * The two faces, parsed once per thread: parsing a 600 KB font's tables costs more than laying
 * out a short document, and every document only takes its own subset of the shared faces.
 */
export function fontFaces(): FontFaces {
  faces ??= { regular: openFace(REGULAR_FONT_PATH), bold: openFace(BOLD_FONT_PATH) };
  return faces;
}

/**
 * pdfkit takes a parsed fontkit font wherever it takes a font file (PDFFontFactory.open); its
 * type definitions only know files and bytes.
 */
export function asFontSource(face: fontkit.Font): Buffer {
  return face as unknown as Buffer;
}

type Treatment = 'draw' | 'drop' | 'replace';
const treatments = new Map<number, Treatment>();

const IGNORABLE = /^[\p{Default_Ignorable_Code_Point}\p{Cc}]$/u;

function treatment(codePoint: number): Treatment {
  let known = treatments.get(codePoint);
  if (known === undefined) {
    const { regular, bold } = fontFaces();
    if (
      codePoint === 0x0a ||
      (regular.hasGlyphForCodePoint(codePoint) && bold.hasGlyphForCodePoint(codePoint))
    ) {
      known = 'draw';
    } else {
      // Joiners, variation selectors, soft hyphens and control characters have no ink: when the
      // font lacks them they are left out rather than shown as a placeholder.
      known = IGNORABLE.test(String.fromCodePoint(codePoint)) ? 'drop' : 'replace';
    }
    treatments.set(codePoint, known);
  }
  return known;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * The text as it will be printed: NFC (so that "ó" is one glyph), tabs as spaces, CR LF as LF,
 * and every grapheme the fonts cannot draw replaced by U+FFFD.
 */
export function printable(text: string): string {
  const normalized = text.normalize('NFC').replace(/\r\n?/g, '\n').replace(/\t/g, ' ');
  let everyDrawn = true;
  for (const char of normalized) {
    if (treatment(char.codePointAt(0)!) !== 'draw') {
      everyDrawn = false;
      break;
    }
  }
  if (everyDrawn) return normalized;
  let out = '';
  for (const { segment } of graphemes.segment(normalized)) {
    let kept = '';
    let unprintable = false;
    for (const char of segment) {
      const how = treatment(char.codePointAt(0)!);
      if (how === 'draw') kept += char;
      else if (how === 'replace') unprintable = true;
    }
    out += unprintable ? REPLACEMENT : kept;
  }
  return out;
}

/** printable() on one line: line breaks become spaces (names, labels, table cells). */
export function printableLine(text: string): string {
  return printable(text).replace(/\s*\n\s*/g, ' ');
}
