// SQL for invoices and their lines (their number counter: src/documents/store.ts). Every query
// takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import { rowById } from '../db/row-by-id.ts';
import { keysetPage, type PagePosition } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { TaxAmount } from '../taxes/schemas.ts';
import type { Payment } from '../payments/schemas.ts';
import type { StoredTaxAmount } from '../taxes/service.ts';
import type { CustomerSnapshot, SellerSnapshot } from './schemas.ts';
import type { InvoiceStatus } from './state.ts';

/** An invoice as stored; its draft fields (DraftFields) are those a draft's edit changes. */
export interface InvoiceRow extends DraftFields {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  customer_id: string;
  number: string | null;
  status: InvoiceStatus;
  currency: string;
  tax_inclusive: boolean;
  subtotal: number;
  tax: number;
  total_excluding_tax: number;
  total: number;
  tax_amounts: StoredTaxAmount[];
  amount_paid: number;
  amount_credited: number;
  out_of_band_amount: number;
  amount_remaining: number;
  customer_snapshot: CustomerSnapshot | null;
  seller_snapshot: SellerSnapshot | null;
  issued_at: Date | null;
  paid_at: Date | null;
  voided_at: Date | null;
  marked_uncollectible_at: Date | null;
  sent_at: Date | null;
  email_status: 'queued' | 'sent' | 'failed' | null;
  email_attempts: number;
  email_last_error: string | null;
  /** Its payments, void ones too, oldest first, as the API shows them (see PAYMENTS). */
  payments: Payment[];
  created_at: Date;
  updated_at: Date;
}

export interface LineRow {
  invoice_id: string;
  id: string;
  position: number;
  description: string;
  quantity: number;
  unit_amount: number;
  amount: number;
  tax_rates: string[] | null;
  unit_code: string;
}

/** What a draft's edit and pricing change (an invoice's own fields, see InvoiceRow). */
export interface DraftFields {
  default_tax_rates: string[];
  /** Date columns are read as text (YYYY-MM-DD), see the SELECT lists. */
  due_date: string | null;
  days_until_due: number | null;
  memo: string | null;
  metadata: Record<string, string>;
  supply_date: string | null;
  service_period_start: string | null;
  service_period_end: string | null;
  buyer_reference: string | null;
  purchase_order: string | null;
}

export interface Totals {
  tax_inclusive: boolean;
  subtotal: number;
  tax: number;
  total_excluding_tax: number;
  total: number;
  tax_amounts: TaxAmount[];
}

// The invoice's payments in the API's shape (Payment), read with the invoice by every statement
// below (index payments_by_invoice); a draft has none, and is not looked up. Statements that
// return invoices name the table `invoices` (no alias), which this refers to.
const ISO = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const PAYMENTS = `CASE WHEN invoices.status = 'draft' THEN '[]'::json ELSE (
    SELECT coalesce(json_agg(json_build_object(
             'id', p.id, 'object', 'payment', 'invoiceId', p.invoice_id,
             'customerId', p.customer_id, 'amount', p.amount, 'currency', p.currency,
             'method', p.method, 'reference', p.reference, 'status', p.status,
             'receivedAt', ${ISO('p.received_at')}, 'createdAt', ${ISO('p.created_at')},
             'voidedAt', ${ISO('p.voided_at')}, 'environment', p.environment)
           ORDER BY p.created_at, p.id), '[]'::json)
      FROM payments p
     WHERE p.tenant_id = invoices.tenant_id AND p.environment = invoices.environment
       AND p.invoice_id = invoices.id) END`;

// due_date as text: a DATE parsed into a JS Date would shift with the time zone.
const COLUMNS = `tenant_id, environment, id, customer_id, number, status, currency,
  default_tax_rates, tax_inclusive, subtotal, tax, total_excluding_tax, total, tax_amounts,
  amount_paid, amount_credited, out_of_band_amount, amount_remaining, due_date::text AS due_date,
  days_until_due, memo, metadata, supply_date::text AS supply_date,
  service_period_start::text AS service_period_start,
  service_period_end::text AS service_period_end, buyer_reference, purchase_order,
  customer_snapshot, seller_snapshot, issued_at, paid_at, voided_at,
  marked_uncollectible_at, sent_at, email_status, email_attempts, email_last_error,
  ${PAYMENTS} AS payments, created_at, updated_at`;

// The invoice's lines in their order, as LineRows, for statements that read invoices with their
// lines in one query (a single statement sees one snapshot: no transaction around two reads).
// Not with FOR UPDATE: a statement that waited for the row's lock sees the row as its holder
// left it, but its subqueries see the snapshot from before the wait, and would miss the lines
// the holder changed. Statements run once the lock is held (an UPDATE after a FOR UPDATE in
// the same transaction) see both alike.
const LINES = `(SELECT coalesce(json_agg(json_build_object(
    'invoice_id', l.invoice_id, 'id', l.id, 'position', l.position,
    'description', l.description, 'quantity', l.quantity, 'unit_amount', l.unit_amount,
    'amount', l.amount, 'tax_rates', l.tax_rates, 'unit_code', l.unit_code)
    ORDER BY l.position), '[]'::json)
   FROM invoice_lines l
  WHERE l.tenant_id = invoices.tenant_id AND l.environment = invoices.environment
    AND l.invoice_id = invoices.id)`;

// The sealed token of the invoice's hosted link while it works (src/hosted/links.ts opens it).
const HOSTED_TOKEN = `(SELECT h.token_sealed FROM hosted_invoice_links h
  WHERE h.tenant_id = invoices.tenant_id AND h.environment = invoices.environment
    AND h.invoice_id = invoices.id AND h.expires_at > clock_timestamp())`;

/** An invoice row with its lines (and, when read for showing, its hosted link's token). */
export type InvoiceWithLines = InvoiceRow & { lines: LineRow[] };
export type ShownInvoiceRow = InvoiceWithLines & { hosted_token_sealed: string | null };

/** An invoice's totals, in the order every statement below takes them. */
function totalsValues(totals: Totals): unknown[] {
  return [
    totals.tax_inclusive,
    totals.subtotal,
    totals.tax,
    totals.total_excluding_tax,
    totals.total,
    JSON.stringify(totals.tax_amounts),
  ];
}

/** A draft's own fields and its totals, in the order both statements below take them. */
function pricedDraftValues(fields: DraftFields, totals: Totals): unknown[] {
  return [
    fields.default_tax_rates,
    fields.due_date,
    fields.days_until_due,
    fields.memo,
    JSON.stringify(fields.metadata),
    fields.supply_date,
    fields.service_period_start,
    fields.service_period_end,
    fields.buyer_reference,
    fields.purchase_order,
    ...totalsValues(totals),
  ];
}

/** Inserts a new draft, priced already, with its lines, in one statement; returns its row. */
export async function insertDraft(
  db: Queryable,
  scope: TenantScope,
  draft: { id: string; customer_id: string; currency: string },
  fields: DraftFields,
  totals: Totals,
  lines: readonly Omit<LineRow, 'invoice_id'>[],
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>({
    name: 'insert_draft',
    text: INSERT_DRAFT_SQL,
    values: [
      scope.tenantId,
      scope.environment,
      draft.id,
      draft.customer_id,
      draft.currency,
      ...pricedDraftValues(fields, totals),
      ...lineArrays(lines),
    ],
  });
  return rows[0]!;
}

export const selectInvoice = rowById<InvoiceRow>(`SELECT ${COLUMNS} FROM invoices`);

/** An invoice, its lines and its hosted link's token, in one statement. */
export async function selectInvoiceWithLines(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<ShownInvoiceRow | undefined> {
  const { rows } = await db.query<ShownInvoiceRow>({
    name: 'select_invoice_with_lines',
    text: `SELECT ${COLUMNS}, ${LINES} AS lines, ${HOSTED_TOKEN} AS hosted_token_sealed
             FROM invoices WHERE tenant_id = $1 AND environment = $2 AND id = $3`,
    values: [scope.tenantId, scope.environment, id],
  });
  return rows[0];
}

/** The lines of these invoices, in their order on each invoice. */
export async function selectLines(
  db: Queryable,
  scope: TenantScope,
  invoiceIds: readonly string[],
): Promise<LineRow[]> {
  if (invoiceIds.length === 0) return [];
  const { rows } = await db.query<LineRow>(
    `SELECT invoice_id, id, position, description, quantity, unit_amount, amount, tax_rates,
            unit_code
       FROM invoice_lines
      WHERE tenant_id = $1 AND environment = $2 AND invoice_id = ANY($3::text[])
      ORDER BY invoice_id, position`,
    [scope.tenantId, scope.environment, invoiceIds],
  );
  return rows;
}

// Lines from arrays unnested in step (tax_rates as JSON, since a line's rates are themselves an
// array, or null); `$first` is the number of the first array parameter. The invoice is
// (tenant $1, environment $2, id $3) in both statements that use it.
function linesFromArrays(first: number): string {
  const p = (i: number) => `$${first + i}`;
  return `INSERT INTO invoice_lines (tenant_id, environment, invoice_id, id, position, description,
                                quantity, unit_amount, amount, tax_rates, unit_code)
     SELECT $1, $2, $3, l.id, l.position, l.description, l.quantity, l.unit_amount, l.amount,
            CASE WHEN l.tax_rates = 'null' THEN NULL
                 ELSE ARRAY(SELECT jsonb_array_elements_text(l.tax_rates)) END, l.unit_code
       FROM unnest(${p(0)}::text[], ${p(1)}::int[], ${p(2)}::text[], ${p(3)}::bigint[],
                   ${p(4)}::bigint[], ${p(5)}::bigint[], ${p(6)}::jsonb[], ${p(7)}::text[])
            AS l(id, position, description, quantity, unit_amount, amount, tax_rates, unit_code)`;
}

function lineArrays(lines: readonly Omit<LineRow, 'invoice_id'>[]): unknown[] {
  return [
    lines.map((l) => l.id),
    lines.map((l) => l.position),
    lines.map((l) => l.description),
    lines.map((l) => l.quantity),
    lines.map((l) => l.unit_amount),
    lines.map((l) => l.amount),
    lines.map((l) => JSON.stringify(l.tax_rates)),
    lines.map((l) => l.unit_code),
  ];
}

const INSERT_LINES_SQL = linesFromArrays(4);

// The lines reference the invoice, inserted by the same statement: foreign keys are checked at
// its end, when both are there.
const INSERT_DRAFT_SQL = `WITH invoice AS (
    INSERT INTO invoices (tenant_id, environment, id, customer_id, currency, status,
                          default_tax_rates, due_date, days_until_due, memo, metadata,
                          supply_date, service_period_start, service_period_end,
                          buyer_reference, purchase_order, tax_inclusive, subtotal, tax,
                          total_excluding_tax, total, tax_amounts, amount_remaining)
    VALUES ($1, $2, $3, $4, $5, 'draft', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
            $16, $17, $18, $19, $20, $21, $20)
    RETURNING ${COLUMNS}
  ),
  line AS (${linesFromArrays(22)})
  SELECT * FROM invoice`;

export async function insertLines(
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
  lines: readonly Omit<LineRow, 'invoice_id'>[],
): Promise<void> {
  if (lines.length === 0) return;
  // One statement for every line.
  await db.query({
    name: 'insert_invoice_lines',
    text: INSERT_LINES_SQL,
    values: [scope.tenantId, scope.environment, invoiceId, ...lineArrays(lines)],
  });
}

export async function deleteLine(
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
  lineId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `DELETE FROM invoice_lines
      WHERE tenant_id = $1 AND environment = $2 AND invoice_id = $3 AND id = $4`,
    [scope.tenantId, scope.environment, invoiceId, lineId],
  );
  return rowCount === 1;
}

export async function deleteAllLines(
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
): Promise<void> {
  await db.query(
    `DELETE FROM invoice_lines WHERE tenant_id = $1 AND environment = $2 AND invoice_id = $3`,
    [scope.tenantId, scope.environment, invoiceId],
  );
}

export async function deleteInvoice(db: Queryable, scope: TenantScope, id: string): Promise<void> {
  await db.query(`DELETE FROM invoices WHERE tenant_id = $1 AND environment = $2 AND id = $3`, [
    scope.tenantId,
    scope.environment,
    id,
  ]);
}

export async function updateDraft(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: DraftFields,
  totals: Totals,
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices
        SET default_tax_rates = $4, due_date = $5, days_until_due = $6, memo = $7, metadata = $8,
            supply_date = $9, service_period_start = $10, service_period_end = $11,
            buyer_reference = $12, purchase_order = $13,
            tax_inclusive = $14, subtotal = $15, tax = $16, total_excluding_tax = $17,
            total = $18, amount_remaining = $18 - amount_paid - amount_credited,
            tax_amounts = $19, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND status = 'draft'
      RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id, ...pricedDraftValues(fields, totals)],
  );
  return rows[0]!;
}

export async function updateMetadata(
  db: Queryable,
  scope: TenantScope,
  id: string,
  metadata: Record<string, string>,
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices SET metadata = $4, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id, JSON.stringify(metadata)],
  );
  return rows[0]!;
}

/** Issues a draft: number, frozen customer and breakdown, due date; paid at once when 0. */
export async function markIssued(
  db: Queryable,
  scope: TenantScope,
  id: string,
  issue: {
    number: string;
    issued_at: Date;
    due_date: string | null;
    supply_date: string | null;
    buyer_reference: string;
    customer_snapshot: CustomerSnapshot;
    seller_snapshot: SellerSnapshot;
    paid: boolean;
  },
  totals: Totals,
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices
        SET number = $4, due_date = $5, customer_snapshot = $6, issued_at = $7::timestamptz,
            status = CASE WHEN $8 THEN 'paid' ELSE 'open' END,
            paid_at = CASE WHEN $8 THEN $7::timestamptz END,
            supply_date = $9, buyer_reference = $10, seller_snapshot = $11,
            tax_inclusive = $12, subtotal = $13, tax = $14, total_excluding_tax = $15,
            total = $16, amount_remaining = $16 - amount_paid - amount_credited,
            tax_amounts = $17, updated_at = $7::timestamptz
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND status = 'draft'
      RETURNING ${COLUMNS}`,
    [
      scope.tenantId,
      scope.environment,
      id,
      issue.number,
      issue.due_date,
      JSON.stringify(issue.customer_snapshot),
      issue.issued_at,
      issue.paid,
      issue.supply_date,
      issue.buyer_reference,
      JSON.stringify(issue.seller_snapshot),
      ...totalsValues(totals),
    ],
  );
  return rows[0]!;
}

// Each transition sets its status and timestamp; the service has checked the move first.
// (Paying is a payment: see updatePaid.)
const TRANSITION_SQL = {
  void: `status = 'void', voided_at = clock_timestamp()`,
  mark_uncollectible: `status = 'uncollectible', marked_uncollectible_at = clock_timestamp()`,
};

export async function applyTransition(
  db: Queryable,
  scope: TenantScope,
  id: string,
  action: keyof typeof TRANSITION_SQL,
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices SET ${TRANSITION_SQL[action]}, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id],
  );
  return rows[0]!;
}

/** Credits (or reverses credits) on an invoice; the status moves with what is still owed. */
export async function updateCredits(
  db: Queryable,
  scope: TenantScope,
  id: string,
  change: { credited: number; outOfBand: number; status: InvoiceStatus },
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices
        SET amount_credited = amount_credited + $4,
            out_of_band_amount = out_of_band_amount + $5,
            amount_remaining = amount_remaining - $4,
            paid_at = CASE WHEN $6 = 'paid' THEN coalesce(paid_at, clock_timestamp()) END,
            status = $6, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id, change.credited, change.outOfBand, change.status],
  );
  return rows[0]!;
}

/**
 * A payment (amount > 0) or its reversal (amount < 0) on an invoice; the status moves with
 * what is still owed, and paidAt with it.
 */
export async function updatePaid(
  db: Queryable,
  scope: TenantScope,
  id: string,
  change: { amount: number; status: InvoiceStatus },
): Promise<InvoiceWithLines> {
  // Run on a row the caller has locked (see LINES).
  const { rows } = await db.query<InvoiceWithLines>(
    `UPDATE invoices
        SET amount_paid = amount_paid + $4, amount_remaining = amount_remaining - $4,
            paid_at = CASE WHEN $5 = 'paid' THEN coalesce(paid_at, clock_timestamp()) END,
            status = $5, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${COLUMNS}, ${LINES} AS lines`,
    [scope.tenantId, scope.environment, id, change.amount, change.status],
  );
  return rows[0]!;
}

/**
 * The tenants and environments that have open invoices past their due date on `today` whose
 * invoice.overdue is still to be recorded (index invoices_overdue_due, across tenants).
 */
export async function selectScopesWithNewlyOverdue(
  db: Queryable,
  today: string,
): Promise<TenantScope[]> {
  const { rows } = await db.query<TenantScope>(
    `SELECT DISTINCT tenant_id AS "tenantId", environment FROM invoices
      WHERE status = 'open' AND overdue_at IS NULL AND due_date < $1::date`,
    [today],
  );
  return rows;
}

/**
 * Marks up to `limit` open invoices of the scope that are past their due date on `today` as
 * recorded overdue, and returns them: the statement that finds them marks them, and skips
 * those another worker holds (FOR UPDATE SKIP LOCKED), so each is returned once, ever.
 */
export async function markOverdue(
  db: Queryable,
  scope: TenantScope,
  today: string,
  limit: number,
): Promise<InvoiceRow[]> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices SET overdue_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND overdue_at IS NULL
        AND id IN (SELECT d.id FROM invoices d
                    WHERE d.tenant_id = $1 AND d.environment = $2 AND d.status = 'open'
                      AND d.overdue_at IS NULL AND d.due_date < $3::date
                    ORDER BY d.due_date LIMIT $4
                      FOR UPDATE SKIP LOCKED)
      RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, today, limit],
  );
  return rows;
}

// Each filter variant has its own index (see the migration), which keysetPage's position bounds.
const FILTERS = {
  all: '', // invoices_page
  customer: 'AND customer_id = $3', // invoices_by_customer
  status: 'AND status = $3', // invoices_by_status
  customerStatus: 'AND customer_id = $3 AND status = $4', // invoices_by_customer_status
} as const;

/** One page of invoices, newest first (index per variant: see FILTERS). */
export async function selectInvoicePage(
  db: Queryable,
  scope: TenantScope,
  filters: { customerId?: string | undefined; status?: string | undefined },
  after: PagePosition | null,
  limit: number,
): Promise<ShownInvoiceRow[]> {
  const values: unknown[] = [scope.tenantId, scope.environment];
  if (filters.customerId !== undefined) values.push(filters.customerId);
  if (filters.status !== undefined) values.push(filters.status);
  const filter: keyof typeof FILTERS =
    filters.customerId !== undefined
      ? filters.status !== undefined
        ? 'customerStatus'
        : 'customer'
      : filters.status !== undefined
        ? 'status'
        : 'all';
  const page = keysetPage(values, after, limit);
  const { rows } = await db.query<ShownInvoiceRow>(
    `SELECT ${COLUMNS}, ${LINES} AS lines, ${HOSTED_TOKEN} AS hosted_token_sealed
       FROM invoices
      WHERE tenant_id = $1 AND environment = $2 ${FILTERS[filter]} ${page.after}
      ${page.orderBy}`,
    page.values,
  );
  return rows;
}

/**
 * What the invoice shows of its last e-mail: queued when a send is asked for, then what the
 * mail worker saw; sentAt when the mail server accepted it.
 */
export async function updateInvoiceEmail(
  db: Queryable,
  scope: TenantScope,
  id: string,
  email: { status: 'queued' | 'sent' | 'failed'; attempts: number; lastError: string | null },
): Promise<InvoiceRow> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices
        SET email_status = $4, email_attempts = $5, email_last_error = $6,
            sent_at = CASE WHEN $4 = 'sent' THEN clock_timestamp() ELSE sent_at END,
            updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id, email.status, email.attempts, email.lastError],
  );
  return rows[0]!;
}
