// The invoice as the API shows it, read from its rows, and the guards every change shares.
import { documentEmailOf } from '../documents/mail.ts';
import type { Queryable } from '../db/pool.ts';
import { existingRowById } from '../db/row-by-id.ts';
import { StateInvalidError } from '../errors.ts';
import { orderedAddress } from '../customers/service.ts';
import { taxAmountFromStored } from '../taxes/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { issuedReadiness } from './einvoice-readiness.ts';
import type { CustomerSnapshot, Invoice, Line } from './schemas.ts';
import { allowedActions, nextStatus, type InvoiceAction } from './state.ts';
import { selectLines, type LineRow } from './lines-store.ts';
import { selectInvoice, type InvoiceRow } from './store.ts';

/**
 * Open and past its due date on `today` (an uncollectible invoice is not chased). `today` is
 * the UTC date as the caller's clock says (todayUtcOf in src/clock.ts): due dates are calendar
 * dates, compared in UTC.
 */
export function isOverdue(
  row: Pick<InvoiceRow, 'status' | 'due_date' | 'test_clock_id' | 'overdue_recorded'>,
  today: string,
): boolean {
  if (row.status !== 'open') return false;
  // A test clock's invoice is overdue once dunning found it so on the clock's date.
  if (row.test_clock_id !== null) return row.overdue_recorded;
  return row.due_date !== null && row.due_date < today;
}

/** The invoice as the API shows it; `overdue` as of `today` (YYYY-MM-DD, UTC). */
export function invoiceFromRow(row: InvoiceRow, lines: readonly LineRow[], today: string): Invoice {
  const invoice: Invoice = {
    id: row.id,
    object: 'invoice',
    customerId: row.customer_id,
    subscriptionId: row.subscription_id,
    billingReason: row.billing_reason,
    number: row.number,
    status: row.status,
    currency: row.currency,
    lines: lines.map(lineFromRow),
    defaultTaxRates: row.default_tax_rates,
    subtotal: row.subtotal,
    tax: row.tax,
    totalExcludingTax: row.total_excluding_tax,
    total: row.total,
    taxAmounts: row.tax_amounts.map(taxAmountFromStored),
    amountPaid: row.amount_paid,
    amountCredited: row.amount_credited,
    outOfBandAmount: row.out_of_band_amount,
    amountRemaining: row.amount_remaining,
    payments: row.payments,
    dueDate: row.due_date,
    overdue: isOverdue(row, today),
    daysUntilDue: row.days_until_due,
    supplyDate: row.supply_date,
    servicePeriod:
      row.service_period_start === null
        ? null
        : { start: row.service_period_start, end: row.service_period_end! },
    buyerReference: row.buyer_reference,
    purchaseOrder: row.purchase_order,
    issuedAt: row.issued_at?.toISOString() ?? null,
    paidAt: row.paid_at?.toISOString() ?? null,
    voidedAt: row.voided_at?.toISOString() ?? null,
    markedUncollectibleAt: row.marked_uncollectible_at?.toISOString() ?? null,
    ...documentEmailOf(row),
    memo: row.memo,
    metadata: row.metadata,
    customer: row.customer_snapshot && orderedSnapshot(row.customer_snapshot),
    // An issued invoice's is judged on what it froze, below; a draft's needs the settings and
    // its customer as they are now, which answers add (./einvoice-readiness.ts).
    einvoice: null,
    // Shown by the API's answers only (./hosted-link.ts); the invoice as stored and as events
    // carry it has none.
    hostedInvoiceUrl: null,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  invoice.einvoice = issuedReadiness(invoice, row.seller_snapshot);
  return invoice;
}

function lineFromRow(l: LineRow): Line {
  return {
    id: l.id,
    description: l.description,
    quantity: l.quantity,
    quantityDecimal: l.quantity_decimal,
    unitAmount: l.unit_amount,
    amount: l.amount,
    taxRates: l.tax_rates,
    unitCode: l.unit_code,
    period:
      l.period_start === null
        ? null
        : {
            start: l.period_start,
            end: l.period_end!,
            startDate: l.period_start_date!,
            endDate: l.period_end_date!,
          },
    priceId: l.price_id,
    subscriptionItemId: l.subscription_item_id,
  };
}

function orderedSnapshot(snapshot: CustomerSnapshot): CustomerSnapshot {
  const a = snapshot.address;
  return {
    name: snapshot.name,
    email: snapshot.email,
    address: a && orderedAddress(a),
    taxIds: snapshot.taxIds.map((t) => ({ type: t.type, value: t.value })),
    taxExempt: snapshot.taxExempt,
    // Snapshots frozen before languages and e-invoices existed: English, no address.
    locale: snapshot.locale ?? 'en',
    electronicAddress: snapshot.electronicAddress
      ? { scheme: snapshot.electronicAddress.scheme, value: snapshot.electronicAddress.value }
      : null,
  };
}

/** The invoice row, or 404 (also for ids of other tenants and environments). */
export const loadInvoiceRow = existingRowById(selectInvoice, 'invoice');

export async function withLines(
  db: Queryable,
  scope: TenantScope,
  row: InvoiceRow,
  today: string,
): Promise<Invoice> {
  return invoiceFromRow(row, await selectLines(db, scope, [row.id]), today);
}

const ACTION_WORDS: Record<InvoiceAction, string> = {
  edit: 'edit',
  delete: 'delete',
  issue: 'issue',
  send: 'send',
  pay: 'pay',
  void: 'void',
  mark_uncollectible: 'mark as uncollectible',
};

/** The invoice row locked for `action` in the transaction: 404, or 409 unless allowed. */
export async function lockInvoiceFor(
  tx: Queryable,
  scope: TenantScope,
  id: string,
  action: InvoiceAction,
): Promise<InvoiceRow> {
  const row = await loadInvoiceRow(tx, scope, id, { forUpdate: true });
  assertAllowed(row, action);
  return row;
}

/** 409 state_invalid unless the state machine allows the action. */
export function assertAllowed(row: InvoiceRow, action: InvoiceAction): void {
  if (nextStatus(row.status, action) !== null) return;
  const allowed = allowedActions(row.status).map((a) => ACTION_WORDS[a]);
  throw new StateInvalidError(
    `Cannot ${ACTION_WORDS[action]} an invoice that is ${row.status}` +
      (allowed.length > 0 ? `; allowed: ${allowed.join(', ')}.` : '.'),
  );
}
