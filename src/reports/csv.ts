// Reports as CSV (RFC 4180, through csv-stringify): a header row, then one record per line of
// the report. UTF-8 with a byte order mark, which spreadsheets need to read it as UTF-8.
// Text from clients (names) that a spreadsheet would take for a formula (=, +, -, @, tab,
// carriage return first) is prefixed with an apostrophe (OWASP "CSV injection"); amounts,
// which may be negative, are written as they are.
import { stringify } from 'csv-stringify/sync';

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | null;
  /** Client text: guarded against formula injection. */
  text?: boolean;
}

const FORMULA_START = /^[=+\-@\t\r]/;

export function toCsv<T>(rows: readonly T[], columns: readonly CsvColumn<T>[]): string {
  const records = rows.map((row) =>
    columns.map((column) => {
      const value = column.value(row);
      if (value === null) return '';
      const text = String(value);
      return column.text && FORMULA_START.test(text) ? `'${text}` : text;
    }),
  );
  return stringify(records, {
    bom: true,
    header: true,
    columns: columns.map((c) => c.header),
    record_delimiter: 'windows',
  });
}
