// Rows read as PostgreSQL's own text, for hot read paths that render JSON themselves: no Date
// or jsonb value is built only to be serialised again a moment later.
import pg from 'pg';

/** Query option: every column arrives as the text PostgreSQL sent (NULL stays null). */
export const TEXT_COLUMNS = { getTypeParser: () => (value: string) => value };

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (
  text: string,
) => Date;

// The text a UTC session sends for a timestamptz with DateStyle ISO, e.g.
// "2025-01-01 00:00:00.07+00" (trailing zeros of the fraction dropped, no fraction at all on a
// whole second). The pool sets TimeZone = UTC; anything else goes the slow way through Date.
const UTC_ISO = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/** A timestamptz's text as JSON's ISO form with milliseconds, as Date.toISOString writes it. */
export function isoFromTimestamptz(text: string): string {
  const m = UTC_ISO.exec(text);
  if (m === null) return parseTimestamptz(text).toISOString();
  const fraction = m[3] === undefined ? '000' : (m[3] + '00').slice(0, 3);
  return `${m[1]}T${m[2]}.${fraction}Z`;
}

/** A nullable text column as a JSON value. */
export function jsonString(text: string | null): string {
  return text === null ? 'null' : JSON.stringify(text);
}
