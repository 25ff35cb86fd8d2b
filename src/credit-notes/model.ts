// The credit note as the API shows it, read from its rows.
import { taxAmountFromStored } from '../taxes/service.ts';
import type { CreditNote } from './schemas.ts';
import type { CreditNoteLineRow, CreditNoteRow } from './store.ts';

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
    sentAt: row.sent_at?.toISOString() ?? null,
    email: row.email_status && {
      status: row.email_status,
      attempts: row.email_attempts,
      lastError: row.email_last_error,
    },
    memo: row.memo,
    metadata: row.metadata,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    voidedAt: row.voided_at?.toISOString() ?? null,
  };
}
