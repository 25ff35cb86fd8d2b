// The console's reading of invoices for its list (./invoices-store.ts), bound to the database
// once (src/composition.ts); an invoice's own page uses the invoices, payments and credit notes
// services, as the API does. And the amounts its forms take, read exactly into minor units.
import type { Db } from '../db/pool.ts';
import { ParameterInvalidError } from '../errors.ts';
import { minorUnits } from '../money/currency.ts';
import type { PageRequest } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import {
  selectInvoicesNamed,
  selectIssuedInvoices,
  selectListedInvoices,
  type ListFilters,
} from './invoices-store.ts';

export type { ListedInvoice } from './invoices-store.ts';

/** The most invoices a search shows. */
export const SEARCH_LIMIT = 50;

export function consoleInvoiceReads(db: Db) {
  return {
    byCreation: (scope: TenantScope, filters: ListFilters, page: PageRequest) =>
      selectListedInvoices(db, scope, filters, page),
    byIssue: (
      scope: TenantScope,
      range: { from: string; to: string; timeZone: string },
      filters: ListFilters,
      page: PageRequest,
    ) => selectIssuedInvoices(db, scope, range, filters, page),
    named: (scope: TenantScope, text: string) => {
      const chars = [...text];
      const last = chars.pop()?.codePointAt(0) ?? 0;
      const above = chars.join('') + String.fromCodePoint(Math.min(last + 1, 0x10ffff));
      return selectInvoicesNamed(db, scope, text, above, SEARCH_LIMIT);
    },
  };
}

/**
 * "12.50" or "12,50" in `currency` → 1250 (its minor units), exactly: digits, at most one
 * decimal separator and at most the currency's decimals; no sign, no grouping. Else 400
 * parameter_invalid naming `param`.
 */
export function amountOf(text: string, currency: string, param = 'amount'): number {
  const digits = minorUnits(currency);
  const match = /^(\d{1,16})(?:[.,](\d*))?$/.exec(text.trim());
  const fraction = match?.[2] ?? '';
  if (!match || fraction.length > digits) {
    throw new ParameterInvalidError(
      param,
      `${param} must be an amount such as ${digits > 0 ? `12.${'5'.padEnd(digits, '0')}` : '12'}.`,
    );
  }
  const minor = BigInt(match[1]!) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0'));
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ParameterInvalidError(param, `${param} is too large.`);
  }
  return Number(minor);
}
