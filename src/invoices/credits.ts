// What credit notes do to an invoice, for the credit-note service to call inside its own
// transaction (it owns the credit note, its number and its events; these own the invoice).
//   open invoice: amountCredited += total, and the invoice becomes paid when nothing remains
//   paid invoice: outOfBandAmount += total (refunded outside the API)
//   reversal (a voided credit note): the same amounts come back off, and a paid invoice that
//   owes something again returns to open, with paidAt cleared (docs/api.md, "Invoices").
import type { Tx } from '../db/pool.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { ParameterInvalidError, StateInvalidError } from '../errors.ts';
import type { TenantScope } from '../tenancy.ts';
import { invoiceFromRow, loadInvoiceRow } from './model.ts';
import type { Invoice } from './schemas.ts';
import { updateCredits } from './balance-store.ts';
import { selectLines, type LineRow } from './lines-store.ts';
import type { InvoiceRow } from './store.ts';

/** Where a credit went; keep it with the credit note, and give it back to reverse it. */
export interface CreditEffect {
  credited: number;
  outOfBand: number;
}

// `today` (YYYY-MM-DD, UTC, from the caller's clock) is what the invoices' `overdue` is judged on.

/**
 * Locks the invoice for the rest of the transaction and returns it with its lines and its
 * frozen tax breakdown (`taxAmounts`), ready for allocateCredit (taxes/service.ts). 404 when
 * it is not an invoice of this tenant and environment.
 */
export async function lockInvoiceForCredit(
  tx: Tx,
  scope: TenantScope,
  invoiceId: string,
  today: string,
): Promise<LockedForCredit> {
  // The lines go out with the lock, in its round trip.
  const [row, lines] = await Promise.all([
    loadInvoiceRow(tx, scope, invoiceId, { forUpdate: true }),
    selectLines(tx, scope, [invoiceId]),
  ]);
  return { invoice: invoiceFromRow(row, lines, today), row, lines };
}

/** An invoice locked for the transaction: as the API shows it, and its row and lines. */
export interface LockedForCredit {
  invoice: Invoice;
  row: InvoiceRow;
  lines: LineRow[];
}

/**
 * Applies a credit note's total to the invoice `locked` in this transaction (its row is as
 * read: nothing else can change it). 409 state_invalid unless the invoice is open or paid; 400
 * parameter_invalid (`amount`) when the credits would exceed the invoice's total.
 */
export async function applyCreditToInvoice(
  uow: UnitOfWork,
  locked: LockedForCredit,
  creditTotal: number,
  today: string,
): Promise<{ invoice: Invoice; effect: CreditEffect }> {
  const { tx, actor: scope } = uow;
  const { row, lines } = locked;
  const invoiceId = row.id;
  if (row.status !== 'open' && row.status !== 'paid') {
    throw new StateInvalidError(
      `Credit notes are only for open or paid invoices; this invoice is ${row.status}.`,
    );
  }
  const creditable = row.total - row.amount_credited - row.out_of_band_amount;
  if (!Number.isSafeInteger(creditTotal) || creditTotal <= 0 || creditTotal > creditable) {
    throw new ParameterInvalidError(
      'amount',
      `A credit must be more than 0 and at most what the invoice has left to credit, ${creditable}.`,
    );
  }
  const credited = row.status === 'open' ? Math.min(creditTotal, row.amount_remaining) : 0;
  const effect = { credited, outOfBand: creditTotal - credited };
  const paysOff = row.status === 'open' && credited === row.amount_remaining;
  const updated = await updateCredits(tx, scope, invoiceId, {
    ...effect,
    status: paysOff ? 'paid' : row.status,
  });
  // An issued invoice's lines do not change.
  const invoice = invoiceFromRow(updated, lines, today);
  uow.event(paysOff ? 'invoice.paid' : 'invoice.updated', invoice);
  return { invoice, effect };
}

/** Takes a credit back off the invoice (its credit note was voided). */
export async function reverseCreditOnInvoice(
  uow: UnitOfWork,
  invoiceId: string,
  effect: CreditEffect,
  today: string,
): Promise<Invoice> {
  const { tx, actor: scope } = uow;
  const row = await loadInvoiceRow(tx, scope, invoiceId, { forUpdate: true });
  if (
    effect.credited < 0 ||
    effect.outOfBand < 0 ||
    effect.credited > row.amount_credited ||
    effect.outOfBand > row.out_of_band_amount
  ) {
    throw new RangeError(`credit effect ${JSON.stringify(effect)} was never applied to ${row.id}`);
  }
  const owesAgain = row.status === 'paid' && effect.credited > 0;
  const updated = await updateCredits(tx, scope, invoiceId, {
    credited: -effect.credited,
    outOfBand: -effect.outOfBand,
    status: owesAgain ? 'open' : row.status,
  });
  const invoice = invoiceFromRow(updated, await selectLines(tx, scope, [invoiceId]), today);
  uow.event('invoice.updated', invoice);
  return invoice;
}
