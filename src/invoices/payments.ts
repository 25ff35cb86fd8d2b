// What payments do to an invoice, for the payment service to call inside its own transaction
// (it owns the payment row and its events; these own the invoice and its events):
//   a payment: amountPaid += amount; the invoice is paid when nothing remains
//   a reversal (a voided payment): amountPaid −= amount; a paid invoice is open again, with
//   paidAt cleared (docs/api.md, "Payments")
// And overdue: the worker's hook that records invoice.overdue once per invoice.
import type { Queryable, Tx } from '../db/pool.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { StateInvalidError } from '../errors.ts';
import type { TenantScope } from '../tenancy.ts';
import { invoiceFromRow, loadInvoiceRow, lockInvoiceFor } from './model.ts';
import type { Invoice } from './schemas.ts';
import type { InvoiceStatus } from './state.ts';
import { markOverdue, selectScopesWithNewlyOverdue, updatePaid } from './balance-store.ts';
import { selectLines } from './lines-store.ts';

/** What a payment needs to know of its invoice. */
export interface PayableInvoice {
  id: string;
  customerId: string;
  currency: string;
  status: InvoiceStatus;
  amountRemaining: number;
}

/**
 * Locks the invoice for the rest of the transaction (payments, credit notes and voids of one
 * invoice queue on this lock, so the amounts stay exact under concurrency). 404 when it is
 * not an invoice of this tenant and environment; 409 unless it is open or uncollectible.
 */
export async function lockInvoiceForPayment(
  tx: Tx,
  scope: TenantScope,
  invoiceId: string,
): Promise<PayableInvoice> {
  const row = await lockInvoiceFor(tx, scope, invoiceId, 'pay');
  return {
    id: row.id,
    customerId: row.customer_id,
    currency: row.currency,
    status: row.status,
    amountRemaining: row.amount_remaining,
  };
}

/** Locks the invoice of a payment about to be voided, and returns its status. */
export async function lockInvoiceOfPayment(
  tx: Tx,
  scope: TenantScope,
  invoiceId: string,
): Promise<InvoiceStatus> {
  return (await loadInvoiceRow(tx, scope, invoiceId, { forUpdate: true })).status;
}

async function recordPaid(
  uow: UnitOfWork,
  invoiceId: string,
  amount: number,
  status: InvoiceStatus,
  today: string,
): Promise<Invoice> {
  const { tx, actor: scope } = uow;
  const updated = await updatePaid(tx, scope, invoiceId, { amount, status });
  return invoiceFromRow(updated, updated.lines, today);
}

/**
 * Applies a payment the caller is recording (`recorded`: its row being written, sent before
 * this, so the invoice lists it), on an invoice it locked: invoice.paid when it settles the invoice, else
 * invoice.updated. The amount must fit (the caller checked; the database refuses otherwise).
 */
export async function applyPaymentToInvoice(
  uow: UnitOfWork,
  invoice: PayableInvoice,
  amount: number,
  today: string,
  recorded: Promise<unknown>,
): Promise<Invoice> {
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > invoice.amountRemaining) {
    throw new RangeError(`payment ${amount} does not fit invoice ${invoice.id}`);
  }
  const settles = amount === invoice.amountRemaining;
  const status = settles ? 'paid' : invoice.status;
  // The payment's row goes out just before (one round trip, the pool pipelines), so the
  // invoice read back lists it; its event is recorded first.
  const [, updated] = await Promise.all([
    recorded,
    recordPaid(uow, invoice.id, amount, status, today),
  ]);
  uow.event(settles ? 'invoice.paid' : 'invoice.updated', updated);
  return updated;
}

/**
 * Takes a payment back off the invoice (the payment was voided): a paid invoice is open again.
 * 409 when the invoice is void (void is final, and so are its payments).
 */
export async function reversePaymentOnInvoice(
  uow: UnitOfWork,
  invoiceId: string,
  amount: number,
  today: string,
): Promise<Invoice> {
  const { tx, actor: scope } = uow;
  const row = await loadInvoiceRow(tx, scope, invoiceId, { forUpdate: true });
  if (row.status === 'void') {
    throw new StateInvalidError(
      'The invoice of this payment is void; a void invoice and its payments are final.',
    );
  }
  if (amount <= 0 || amount > row.amount_paid) {
    throw new RangeError(`payment ${amount} was never applied to ${row.id}`);
  }
  const status = row.status === 'paid' ? 'open' : row.status;
  const updated = await recordPaid(uow, invoiceId, -amount, status, today);
  uow.event('invoice.updated', updated);
  return updated;
}

/** The tenants and environments with invoices whose invoice.overdue is due on `today`. */
export function scopesWithNewlyOverdueInvoices(
  db: Queryable,
  today: string,
  testClockId: string | null = null,
): Promise<TenantScope[]> {
  return selectScopesWithNewlyOverdue(db, today, testClockId);
}

/**
 * Records invoice.overdue for up to `limit` open invoices of the unit of work's scope that are
 * past their due date on `today` and have not had it: each invoice has it once, even with
 * several workers (see markOverdue). Returns how many.
 */
export async function recordOverdueInvoices(
  uow: UnitOfWork,
  today: string,
  limit: number,
  testClockId: string | null = null,
): Promise<number> {
  const { tx, actor: scope } = uow;
  const rows = await markOverdue(tx, scope, today, limit, testClockId);
  const lines = await selectLines(
    tx,
    scope,
    rows.map((r) => r.id),
  );
  for (const row of rows) {
    const invoice = invoiceFromRow(
      row,
      lines.filter((l) => l.invoice_id === row.id),
      today,
    );
    // Overdue as the worker's clock says, which tests may set apart from the real one.
    const overdue: Invoice = { ...invoice, overdue: true };
    uow.event('invoice.overdue', overdue);
  }
  return rows.length;
}
