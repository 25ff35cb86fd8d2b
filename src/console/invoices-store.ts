// SQL of the console's invoice list: the columns a row of the list shows (its customer's name by
// the customers primary key), newest first, 25 a page and one more to tell a next page exists.
// Without an issue-date range the list is by creation, keyset on (created_at, id), on the
// index of its filters: invoices_page, invoices_by_customer, invoices_by_status,
// invoices_by_customer_status (the API's). With a range it is by issue, keyset on
// (issued_at, id), a range of invoices_revenue_by_issue (or, with a customer,
// invoices_by_customer), the status sifted. Numbers are found by prefix on invoices_number, an
// id by the primary key.
import type { Queryable } from '../db/pool.ts';
import { allRows } from '../db/rows.ts';
import { pageReader, type PageRequest } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';

export interface ListedInvoice {
  id: string;
  number: string | null;
  status: string;
  customer_id: string;
  customer_name: string | null;
  currency: string;
  total: number;
  amount_remaining: number;
  issued_at: Date | null;
  due_date: string | null;
  created_at: Date;
}

export interface ListFilters {
  customerId?: string | undefined;
  status?: string | undefined;
}

const LISTED = `SELECT id, number, status, customer_id, currency, total,
  amount_remaining, issued_at, due_date::text AS due_date, created_at,
  (SELECT c.name FROM customers c WHERE c.tenant_id = invoices.tenant_id
      AND c.environment = invoices.environment AND c.id = invoices.customer_id) AS customer_name
  FROM invoices`;

/** A page by creation, newest first (pageReader: one statement per filter variant). */
export const selectListedInvoices = pageReader<ListedInvoice, ListFilters>(LISTED, {
  name: 'console_invoices',
  filters: (f) => [
    ['customer_id', f.customerId],
    ['status', f.status],
  ],
});

/** The listed invoices of the tenant and environment that `where` (after $1, $2) selects. */
function listed(db: Queryable, name: string, where: string, values: unknown[]) {
  const text = `${LISTED} WHERE tenant_id = $1 AND environment = $2 ${where}`;
  return allRows<ListedInvoice>(db, { name, text, values });
}

/**
 * A page of the invoices issued from `from` to `to` (calendar days in `timeZone`, both
 * included), newest issue first; `page.after` is the last row's (issued_at, id).
 */
export function selectIssuedInvoices(
  db: Queryable,
  scope: TenantScope,
  range: { from: string; to: string; timeZone: string },
  filters: ListFilters,
  page: PageRequest,
): Promise<ListedInvoice[]> {
  const { after } = page;
  return listed(
    db,
    `console_invoices_issued${after ? 'After' : 'First'}`,
    `AND issued_at IS NOT NULL
     AND issued_at >= ($3::date)::timestamp AT TIME ZONE $5
     AND issued_at < ($4::date + 1)::timestamp AT TIME ZONE $5
     AND ($6::text IS NULL OR customer_id = $6) AND ($7::text IS NULL OR status = $7)
     ${after ? 'AND (issued_at, id) < ($9::timestamptz, $10)' : ''}
     ORDER BY issued_at DESC, id DESC LIMIT $8`,
    [
      scope.tenantId,
      scope.environment,
      range.from,
      range.to,
      range.timeZone,
      filters.customerId ?? null,
      filters.status ?? null,
      page.limit + 1,
      ...(after ? [after.createdAt, after.id] : []),
    ],
  );
}

/**
 * The invoice whose id is `text` and those whose number starts with it, by number, `limit` at
 * most. Numbers are compared bytewise (COLLATE "C"), so the prefix is the range [text, above)
 * of invoices_number, `above` being `text` with its last character the next one.
 */
export function selectInvoicesNamed(
  db: Queryable,
  scope: TenantScope,
  text: string,
  above: string,
  limit: number,
): Promise<ListedInvoice[]> {
  return listed(
    db,
    'console_invoices_named',
    `AND (id = $3 OR (number >= $3 AND number < $4)) ORDER BY number NULLS FIRST LIMIT $5`,
    [scope.tenantId, scope.environment, text, above, limit],
  );
}
