// Rows read as PostgreSQL's text, unparsed: for reads whose answer is JSON written straight
// from the columns (src/customers/customer-json.ts). A jsonb column is then already its JSON
// text and a timestamp its ISO text, where `pg`'s default would parse the one (JSON.parse) and
// the other (a regular expression and a Date) only for the answer to serialise them again.
import pg from 'pg';

/** A query's `types`: every column as its text, null as null. */
export const TEXT_TYPES = { getTypeParser: () => (text: string) => text };

const parseTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (
  text: string,
) => Date;

/**
 * A timestamptz's text ("2025-06-01 12:00:00.123456+00" in the UTC session the pool opens) as
 * the API writes instants: ISO 8601, UTC, milliseconds ("2025-06-01T12:00:00.123Z"), as
 * Date's toISOString gives them (the fraction cut, not rounded, to milliseconds). Any other
 * form (another session zone, a year past 9999) goes through a Date.
 */
export function isoInstant(text: string): string {
  if (text.length < 22 || text[10] !== ' ' || !text.endsWith('+00')) {
    return parseTimestamp(text).toISOString();
  }
  const fraction = text.length > 22 ? text.slice(20, -3) : '';
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${(fraction + '000').slice(0, 3)}Z`;
}

/** A text column as a JSON value: a string, or null. */
export function jsonString(text: string | null): string {
  return text === null ? 'null' : JSON.stringify(text);
}
