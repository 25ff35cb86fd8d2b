// Calendar dates and time zones as the API takes them: one rule for every field and query.
import { ParameterInvalidError } from './errors.ts';

/**
 * `value` if it is a real calendar date of the years 0001–9999 (the calendar has no year 0,
 * and PostgreSQL refuses it); else 400 parameter_invalid naming `param`.
 */
export function checkedDate(value: string, param: string): string {
  const date = new Date(`${value}T00:00:00Z`);
  if (
    Number.isNaN(date.getTime()) ||
    date.toISOString().slice(0, 10) !== value ||
    value.startsWith('0000')
  ) {
    throw new ParameterInvalidError(param, `${param} is not a valid date (YYYY-MM-DD).`);
  }
  return value;
}

/**
 * An IANA time zone name (`Europe/Berlin`, `UTC`) as the platform's time zone database knows
 * it, in its canonical form (`US/Pacific` → `America/Los_Angeles`, `utc` → `UTC`); else 400
 * parameter_invalid naming `param`. Offsets (`+01:00`) are refused: a zone's offset changes
 * with daylight saving time, which period boundaries must follow.
 */
export function checkedTimeZone(name: string, param: string): string {
  const refused = () =>
    new ParameterInvalidError(
      param,
      `'${name}' is not an IANA time zone name (e.g. Europe/Berlin, America/New_York, UTC).`,
    );
  if (!/^[A-Za-z]/.test(name)) throw refused();
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw refused();
  }
}
