// The credit note as the API shows it, read from its rows.
import { documentEmailOf } from '../documents/mail.ts';
import { existingRowById } from '../db/row-by-id.ts';
import { taxAmountFromStored } from '../taxes/service.ts';
import type { CreditNote } from './schemas.ts';
import { selectCreditNote, type CreditNoteLineRow, type CreditNoteRow } from './store.ts';

/** The credit note's row (locked for the transaction with `forUpdate`); 404 if not ours. */
export const loadCreditNoteRow = existingRowById(selectCreditNote, 'credit note');

export function creditNoteFromRow(
  row: CreditNoteRow,
  lines: readonly Omit<CreditNoteLineRow, 'credit_note_id'>[],
): CreditNote {
  return {
    id: row.id,
    object: 'credit_note',
    number: row.number,
    invoiceId: row.invoice_id,
    customerId: row.customer_id,
    status: row.status,
    currency: row.currency,
    amount: row.total,
    subtotal: row.subtotal,
    tax: row.tax,
    totalExcludingTax: row.total_excluding_tax,
    total: row.total,
    taxAmounts: row.tax_amounts.map(taxAmountFromStored),
    creditedAmount: row.credited_amount,
    outOfBandAmount: row.out_of_band_amount,
    lines: lines.map((l) => ({
      id: l.id,
      description: l.description,
      amount: l.amount,
      amountExcludingTax: l.amount_excluding_tax,
      tax: l.tax,
      invoiceLineId: l.invoice_line_id,
    })),
    reason: row.reason,
    ...documentEmailOf(row),
    memo: row.memo,
    metadata: row.metadata,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    voidedAt: row.voided_at?.toISOString() ?? null,
  };
}
