// Reports as CSV (RFC 4180, through csv-stringify): a header row, then one record per line of
// the report, records ending in CR LF. UTF-8 with a byte order mark, which spreadsheets need
// to read it as UTF-8. The rules (docs/payments.md, CSV):
// - a field holding CR, LF, a quote or the delimiter is quoted, so a line break typed into a
//   name stays inside its field (csv-stringify quotes only the CR LF it ends records with);
// - text that a spreadsheet would take for a formula gets the guard `'` as its very first
//   character (OWASP "CSV injection"): `=`, `+`, `-`, `@`, TAB or CR first, or after leading
//   white space and invisible format characters (NBSP, zero-width space and joiners, word
//   joiner, byte order mark), also in their full-width forms (＝ ＋ － ＠);
// - numbers the report computes (amounts, which may be negative, and counts) are written as
//   they are: they are exact figures, never text a client typed, and a guard would turn them
//   into text in the spreadsheet.
import { stringify } from 'csv-stringify/sync';
import type { FastifyReply } from 'fastify';

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | null;
  /** A number the report computes: written as it is, never guarded. */
  number?: boolean;
}

const FORMULA_START = /^[\s\p{Cf}]*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/u;

/** The text as a CSV field a spreadsheet shows as text, never runs as a formula. */
export function guardedText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export function toCsv<T>(rows: readonly T[], columns: readonly CsvColumn<T>[]): string {
  const records = rows.map((row) =>
    columns.map((column) => {
      const value = column.value(row);
      if (value === null) return '';
      return column.number ? String(value) : guardedText(String(value));
    }),
  );
  return stringify(records, {
    bom: true,
    header: true,
    columns: columns.map((c) => c.header),
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
  });
}

/** Answers with a report's CSV as a download named `filename` (the API's and the console's). */
export function sendCsv(reply: FastifyReply, filename: string, csv: string): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8; header=present')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(csv);
}
