// Text that a document can carry. The API stores any text but NUL and unpaired surrogates;
// XML 1.0 has no way to write the other C0 control characters (U+0001–U+0008, U+000B, U+000C,
// U+000E–U+001F) nor U+FFFE and U+FFFF, not even as character references. An e-invoice and
// the PDF that carries it must say the same thing, so both show each such character as the
// replacement character U+FFFD (docs/einvoices.md); TAB, LF and CR are kept.

// Everything outside XML 1.0's Char production (lone surrogates never reach a document).
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uD800-\uDFFF\uE000-\uFFFD]/g;

export function documentText(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD');
}

/** The model (or any value) with documentText applied to every string in it: a copy. */
export function withDocumentText<T>(value: T): T {
  if (typeof value === 'string') return documentText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => withDocumentText(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withDocumentText(item)]),
    ) as T;
  }
  return value;
}
