// Calendar dates as the API takes them (YYYY-MM-DD): one rule for every field and query.
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
