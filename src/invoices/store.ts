// SQL for invoices: the row and its columns, reads and pages, transitions and e-mail status
// (their number counter: src/documents/store.ts). Lines are in lines-store.ts, drafts' writes
// in draft-store.ts, payments, credits and the overdue scan in balance-store.ts. Every query
// takes the tenant and the environment.
import type { CustomerRow } from '../customers/store.ts';
import type { Queryable } from '../db/pool.ts';
import type { SettingsRow } from '../settings/service.ts';
import { rowById } from '../db/row-by-id.ts';
import { pageReader } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { TaxAmount } from '../taxes/schemas.ts';
import type { Payment } from '../payments/schemas.ts';
import type { StoredTaxAmount } from '../taxes/service.ts';
import type { BillingReason, CustomerSnapshot, SellerSnapshot } from './schemas.ts';
import { INVOICE_STATUSES, nextStatus, type InvoiceStatus } from './state.ts';
import { ISO, LINES, type LineRow } from './lines-store.ts';

/** An invoice as stored; its draft fields (DraftFields) are those a draft's edit changes. */
export interface InvoiceRow extends DraftFields {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  customer_id: string;
  /** The test clock of its customer when it was made (migration 0042), or null. */
  test_clock_id: string | null;
  /** Whether dunning recorded invoice.overdue for it. */
  overdue_recorded: boolean;
  /** The subscription that made it, with why (migration 0041); null and `manual` otherwise. */
  subscription_id: string | null;
  billing_reason: BillingReason;
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
export const COLUMNS = `tenant_id, environment, id, customer_id, subscription_id, billing_reason,
  number, status, currency,
  default_tax_rates, tax_inclusive, subtotal, tax, total_excluding_tax, total, tax_amounts,
  amount_paid, amount_credited, out_of_band_amount, amount_remaining, due_date::text AS due_date,
  days_until_due, memo, metadata, supply_date::text AS supply_date,
  service_period_start::text AS service_period_start,
  service_period_end::text AS service_period_end, buyer_reference, purchase_order,
  customer_snapshot, seller_snapshot, issued_at, paid_at, voided_at,
  marked_uncollectible_at, sent_at, email_status, email_attempts, email_last_error,
  ${PAYMENTS} AS payments, test_clock_id, overdue_at IS NOT NULL AS overdue_recorded,
  created_at, updated_at`;

// The sealed token of the invoice's hosted link while it works (src/hosted/links.ts opens it).
const HOSTED_TOKEN = `(SELECT h.token_sealed FROM hosted_invoice_links h
  WHERE h.tenant_id = invoices.tenant_id AND h.environment = invoices.environment
    AND h.invoice_id = invoices.id AND h.expires_at > clock_timestamp())`;

// What a draft's e-invoice readiness takes besides the draft (./einvoice-readiness.ts): what
// issuing it now would freeze, its customer and the tenant's settings and name. Read in the
// draft's own statement (primary key look-ups, as JSON rows) rather than in two more; an issued
// invoice froze them, and reads none.
const DRAFT_CONTEXT = `CASE WHEN invoices.status = 'draft' THEN json_build_object(
    'customer', (SELECT row_to_json(c) FROM customers c
                  WHERE c.tenant_id = invoices.tenant_id AND c.environment = invoices.environment
                    AND c.id = invoices.customer_id),
    'settings', (SELECT row_to_json(s) FROM tenant_settings s
                  WHERE s.tenant_id = invoices.tenant_id AND s.environment = invoices.environment),
    'tenantName', (SELECT t.name FROM tenants t WHERE t.tenant_id = invoices.tenant_id)) END`;

/** A draft's context as read (DRAFT_CONTEXT): rows as JSON, their instants as ISO text. */
export interface DraftContextJson {
  customer: (Omit<CustomerRow, 'created_at' | 'updated_at'> & Stamped) | null;
  settings: (Omit<SettingsRow, 'updated_at'> & { updated_at: string }) | null;
  tenantName: string | null;
}
type Stamped = { created_at: string; updated_at: string };

/** An invoice row with its lines (and, when read for showing, its hosted link's token). */
export type InvoiceWithLines = InvoiceRow & { lines: LineRow[] };
export type ShownInvoiceRow = InvoiceWithLines & { hosted_token_sealed: string | null };

export const selectInvoice = rowById<InvoiceRow>(`SELECT ${COLUMNS} FROM invoices`);

/** An invoice, its lines and its hosted link's token, in one statement. */
export const selectInvoiceWithLines = rowById<ShownInvoiceRow>(
  `SELECT ${COLUMNS}, ${LINES} AS lines, ${HOSTED_TOKEN} AS hosted_token_sealed FROM invoices`,
  { name: 'select_invoice_with_lines' },
);

/** What GET /v1/invoices/:id shows, in one statement: with a draft's context (null if issued). */
export const selectShownInvoice = rowById<
  ShownInvoiceRow & { draft_context: DraftContextJson | null }
>(
  `SELECT ${COLUMNS}, ${LINES} AS lines, ${HOSTED_TOKEN} AS hosted_token_sealed,
          ${DRAFT_CONTEXT} AS draft_context FROM invoices`,
  { name: 'select_shown_invoice' },
);

export async function deleteInvoice(db: Queryable, scope: TenantScope, id: string): Promise<void> {
  await db.query(`DELETE FROM invoices WHERE tenant_id = $1 AND environment = $2 AND id = $3`, [
    scope.tenantId,
    scope.environment,
    id,
  ]);
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

// Each transition sets its status and timestamp. (Paying is a payment: see updatePaid.)
const TRANSITION_SQL = {
  void: `status = 'void', voided_at = clock_timestamp()`,
  mark_uncollectible: `status = 'uncollectible', marked_uncollectible_at = clock_timestamp()`,
};

/** The statuses each transition moves from, by the state machine (./state.ts). */
const TRANSITION_FROM = {
  void: INVOICE_STATUSES.filter((s) => nextStatus(s, 'void') !== null),
  mark_uncollectible: INVOICE_STATUSES.filter((s) => nextStatus(s, 'mark_uncollectible') !== null),
};

/**
 * The transition, on an invoice in a status it moves from; else nothing is changed and the
 * row is undefined. The service checks the move on the locked row first (a clear refusal);
 * this statement may be sent before that check's answer and must then change nothing.
 */
export async function applyTransition(
  db: Queryable,
  scope: TenantScope,
  id: string,
  action: keyof typeof TRANSITION_SQL,
): Promise<InvoiceRow | undefined> {
  const { rows } = await db.query<InvoiceRow>(
    `UPDATE invoices SET ${TRANSITION_SQL[action]}, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND status = ANY($4::text[])
      RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id, TRANSITION_FROM[action]],
  );
  return rows[0];
}

export interface InvoiceFilters {
  customerId?: string | undefined;
  status?: string | undefined;
  subscriptionId?: string | undefined;
}

/**
 * One page of invoices, newest first. Each filter variant has its own index (see the
 * migrations), which the page's position bounds: invoices_page, invoices_by_customer,
 * invoices_by_status, invoices_by_customer_status; with a subscription, invoices_by_subscription
 * (a subscription has one customer and few invoices, which the other filters then sift).
 */
export const selectInvoicePage = pageReader<ShownInvoiceRow, InvoiceFilters>(
  `SELECT ${COLUMNS}, ${LINES} AS lines, ${HOSTED_TOKEN} AS hosted_token_sealed FROM invoices`,
  {
    filters: (f) => [
      ['customer_id', f.customerId],
      ['status', f.status],
      ['subscription_id', f.subscriptionId],
    ],
  },
);

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
