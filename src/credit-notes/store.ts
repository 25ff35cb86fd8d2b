// SQL for credit notes and their lines (their number counter: src/documents/store.ts). Every
// query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import { rowById, rowsByIds } from '../db/row-by-id.ts';
import { arraysInStep } from '../db/row-writes.ts';
import { pageReader } from '../paging.ts';
import type { SellerSnapshot } from '../invoices/schemas.ts';
import type { TaxAmount } from '../taxes/schemas.ts';
import type { StoredTaxAmount } from '../taxes/service.ts';
import type { TenantScope } from '../tenancy.ts';

export interface CreditNoteRow {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  number: string;
  invoice_id: string;
  customer_id: string;
  status: 'issued' | 'void';
  currency: string;
  reason: 'duplicate' | 'fraudulent' | 'order_change' | 'product_unsatisfactory' | null;
  memo: string | null;
  metadata: Record<string, string>;
  tax_inclusive: boolean;
  subtotal: number;
  tax: number;
  total_excluding_tax: number;
  total: number;
  tax_amounts: StoredTaxAmount[];
  credited_amount: number;
  out_of_band_amount: number;
  seller_snapshot: SellerSnapshot | null;
  sent_at: Date | null;
  email_status: 'queued' | 'sent' | 'failed' | null;
  email_attempts: number;
  email_last_error: string | null;
  created_at: Date;
  voided_at: Date | null;
}

/** A credit-note line's part of one tax rate. */
export interface LineTaxPart {
  taxRateId: string;
  taxableAmount: number;
  amount: number;
}

export interface CreditNoteLineRow {
  credit_note_id: string;
  id: string;
  position: number;
  invoice_line_id: string | null;
  description: string;
  amount: number;
  amount_excluding_tax: number;
  tax: number;
  /** Null for lines written before the parts were kept. */
  tax_amounts: LineTaxPart[] | null;
}

export type NewCreditNote = Omit<
  CreditNoteRow,
  | 'tenant_id'
  | 'environment'
  | 'status'
  | 'created_at'
  | 'voided_at'
  | 'tax_amounts'
  | 'sent_at'
  | 'email_status'
  | 'email_attempts'
  | 'email_last_error'
> & { tax_amounts: TaxAmount[] };

const COLUMNS = `tenant_id, environment, id, number, invoice_id, customer_id, status, currency,
  reason, memo, metadata, tax_inclusive, subtotal, tax, total_excluding_tax, total, tax_amounts,
  credited_amount, out_of_band_amount, seller_snapshot, sent_at, email_status, email_attempts,
  email_last_error, created_at, voided_at`;

export async function insertCreditNote(
  db: Queryable,
  scope: TenantScope,
  note: NewCreditNote,
): Promise<CreditNoteRow> {
  const { rows } = await db.query<CreditNoteRow>(
    `INSERT INTO credit_notes (tenant_id, environment, id, number, invoice_id, customer_id,
                               status, currency, reason, memo, metadata, tax_inclusive, subtotal,
                               tax, total_excluding_tax, total, tax_amounts, credited_amount,
                               out_of_band_amount, seller_snapshot)
     VALUES ($1, $2, $3, $4, $5, $6, 'issued', $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
             $17, $18, $19)
     RETURNING ${COLUMNS}`,
    [
      scope.tenantId,
      scope.environment,
      note.id,
      note.number,
      note.invoice_id,
      note.customer_id,
      note.currency,
      note.reason,
      note.memo,
      JSON.stringify(note.metadata),
      note.tax_inclusive,
      note.subtotal,
      note.tax,
      note.total_excluding_tax,
      note.total,
      JSON.stringify(note.tax_amounts),
      note.credited_amount,
      note.out_of_band_amount,
      JSON.stringify(note.seller_snapshot),
    ],
  );
  return rows[0]!;
}

export async function insertCreditNoteLines(
  db: Queryable,
  scope: TenantScope,
  note: { id: string; invoice_id: string },
  lines: readonly Omit<CreditNoteLineRow, 'credit_note_id'>[],
): Promise<void> {
  if (lines.length === 0) return;
  // One statement for every line: arrays unnested in step.
  await db.query(
    `INSERT INTO credit_note_lines (tenant_id, environment, credit_note_id, invoice_id, id,
                                    position, invoice_line_id, description, amount,
                                    amount_excluding_tax, tax, tax_amounts)
     SELECT $1, $2, $3, $4, l.id, l.position, l.invoice_line_id, l.description, l.amount,
            l.amount_excluding_tax, l.tax, l.tax_amounts
       FROM unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::bigint[], $10::bigint[],
                   $11::bigint[], $12::jsonb[])
            AS l(id, position, invoice_line_id, description, amount, amount_excluding_tax, tax,
                 tax_amounts)`,
    [
      scope.tenantId,
      scope.environment,
      note.id,
      note.invoice_id,
      ...arraysInStep(lines, [
        'id',
        'position',
        'invoice_line_id',
        'description',
        'amount',
        'amount_excluding_tax',
        'tax',
      ]),
      lines.map((l) => JSON.stringify(l.tax_amounts)),
    ],
  );
}

export const selectCreditNote = rowById<CreditNoteRow>(`SELECT ${COLUMNS} FROM credit_notes`);

/** The lines of these credit notes, in their order on each. */
export const selectCreditNoteLines = rowsByIds<CreditNoteLineRow>(
  `SELECT credit_note_id, id, position, invoice_line_id, description, amount,
          amount_excluding_tax, tax, tax_amounts
     FROM credit_note_lines`,
  { column: 'credit_note_id', orderBy: 'credit_note_id, position' },
);

/** The issued (not void) credit notes of an invoice, oldest first (credit_notes_by_invoice). */
export async function selectIssuedCreditNotes(
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
): Promise<CreditNoteRow[]> {
  const { rows } = await db.query<CreditNoteRow>(
    `SELECT ${COLUMNS} FROM credit_notes
      WHERE tenant_id = $1 AND environment = $2 AND invoice_id = $3 AND status = 'issued'
      ORDER BY created_at, id`,
    [scope.tenantId, scope.environment, invoiceId],
  );
  return rows;
}

/** What issued credit notes credited against each line of an invoice (gross). */
export async function selectCreditedByInvoiceLine(
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
): Promise<Map<string, number>> {
  const { rows } = await db.query<{ invoice_line_id: string; credited: number }>(
    `SELECT l.invoice_line_id, sum(l.amount)::bigint AS credited
       FROM credit_note_lines l
       JOIN credit_notes c ON c.tenant_id = l.tenant_id AND c.environment = l.environment
                          AND c.id = l.credit_note_id
      WHERE l.tenant_id = $1 AND l.environment = $2 AND l.invoice_id = $3
        AND l.invoice_line_id IS NOT NULL AND c.status = 'issued'
      GROUP BY l.invoice_line_id`,
    [scope.tenantId, scope.environment, invoiceId],
  );
  return new Map(rows.map((r) => [r.invoice_line_id, r.credited]));
}

export async function markVoid(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<CreditNoteRow> {
  const { rows } = await db.query<CreditNoteRow>(
    `UPDATE credit_notes SET status = 'void', voided_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND status = 'issued'
      RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id],
  );
  return rows[0]!;
}

/** One page, newest first: index credit_notes_page, or credit_notes_by_invoice filtered. */
export const selectCreditNotePage = pageReader<CreditNoteRow, { invoiceId?: string | undefined }>(
  `SELECT ${COLUMNS} FROM credit_notes`,
  { filters: (f) => [['invoice_id', f.invoiceId]] },
);

/** What the credit note shows of its last e-mail (see the invoice's `email`). */
export async function updateCreditNoteEmail(
  db: Queryable,
  scope: TenantScope,
  id: string,
  email: { status: 'queued' | 'sent' | 'failed'; attempts: number; lastError: string | null },
): Promise<CreditNoteRow> {
  const { rows } = await db.query<CreditNoteRow>(
    `UPDATE credit_notes
        SET email_status = $4, email_attempts = $5, email_last_error = $6,
            sent_at = CASE WHEN $4 = 'sent' THEN clock_timestamp() ELSE sent_at END
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id, email.status, email.attempts, email.lastError],
  );
  return rows[0]!;
}
