// Credit note rules: what may be credited (plan.ts), the effect on the invoice (through the
// invoice module's credit hooks), gapless numbers, voiding, events. Every write happens in the
// caller's transaction (sendWrite), with the invoice row locked first: creations and voids of
// one invoice queue on that lock, so the caps hold under concurrency. Lock order everywhere:
// invoice row, then credit note row, then the number counter.
import { todayUtcOf, type Clock } from '../clock.ts';
import type { Db, Queryable, Tx } from '../db/pool.ts';
import {
  unitOfWork,
  type UnitOfWork,
  type WriteRequest,
  type Written,
} from '../db/unit-of-work.ts';
import { ResourceMissingError, StateInvalidError } from '../errors.ts';
import type { PageRequest } from '../paging.ts';
import { newId } from '../ids.ts';
import {
  applyCreditToInvoice,
  lockInvoiceForCredit,
  reverseCreditOnInvoice,
  type LockedForCredit,
} from '../invoices/service.ts';
import { sellerSnapshot } from '../documents/frozen.ts';
import type { IssuedDocuments } from '../documents/service.ts';
import { getSettingsWithTenantName } from '../settings/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { creditNoteFromRow, loadCreditNoteRow } from './model.ts';
import { isTaxInclusive, planCredit } from './plan.ts';
import type { CreditNote, CreditNoteCreate } from './schemas.ts';
import {
  insertCreditNote,
  insertCreditNoteLines,
  markVoid,
  selectCreditedByInvoiceLine,
  selectCreditNote,
  selectCreditNoteLines,
  selectCreditNotePage,
  selectIssuedCreditNotes,
  type CreditNoteLineRow,
} from './store.ts';

export { creditNoteFromRow } from './model.ts';
export { grossOnLine } from './plan.ts';

/** The invoice, locked for the transaction; 404 naming `invoiceId` when it is not ours. */
async function lockInvoice(
  tx: Tx,
  scope: TenantScope,
  invoiceId: string,
  today: string,
): Promise<LockedForCredit> {
  try {
    return await lockInvoiceForCredit(tx, scope, invoiceId, today);
  } catch (error) {
    if (error instanceof ResourceMissingError) {
      throw new ResourceMissingError('invoice', invoiceId, 'invoiceId');
    }
    throw error;
  }
}

export async function createCreditNote(
  db: Db,
  clock: Clock,
  documents: IssuedDocuments,
  request: WriteRequest,
  input: CreditNoteCreate,
): Promise<Written<CreditNote>> {
  const written = await unitOfWork(
    db,
    request,
    async (uow) => (await creditNoteInWork(uow, documents, todayUtcOf(clock), input))!,
  );
  // Its documents are rendered from what it froze, after this answer (its render was queued
  // with its events).
  if (!written.replayed) documents.issued();
  return written;
}

/**
 * Makes a credit note inside the caller's unit of work (the API's, or a subscription change's
 * whose credit cannot be an invoice). With `cap`, lines beyond what the invoice has left to
 * credit are cut to it, and the memo says so.
 */
export async function creditNoteInWork(
  uow: UnitOfWork,
  documents: IssuedDocuments,
  today: string,
  input: CreditNoteCreate,
  cap = false,
): Promise<CreditNote | null> {
  const { tx, actor: scope } = uow;
  const invoiceId = input.invoiceId;
  // One round trip: what the plan reads goes out with the invoice's lock and runs after it.
  const [locked, issued, byInvoiceLine, { settings, tenantName }] = await Promise.all([
    lockInvoice(tx, scope, invoiceId, today),
    selectIssuedCreditNotes(tx, scope, invoiceId),
    input.lines?.some((l) => l.invoiceLineId !== undefined)
      ? selectCreditedByInvoiceLine(tx, scope, invoiceId)
      : new Map<string, number>(),
    getSettingsWithTenantName(tx, scope),
  ]);
  const { invoice } = locked;
  // Checked before the amounts, so a draft or void invoice is always 409 (the hook checks too).
  if (invoice.status !== 'open' && invoice.status !== 'paid') {
    throw new StateInvalidError(
      `Credit notes are only for open or paid invoices; this invoice is ${invoice.status}.`,
    );
  }
  const plan = planCredit(
    invoice,
    {
      allocations: issued.map((r) => ({
        totalExcludingTax: r.total_excluding_tax,
        taxAmounts: r.tax_amounts,
      })),
      byInvoiceLine,
    },
    input,
    cap,
  );
  const credit = plan.allocation;
  // Capped to nothing: there is nothing left to credit, and no credit note.
  if (cap && credit.total === 0) return null;
  // The number goes out with the invoice's update, late: the counter row stays locked until
  // this transaction ends. Credit notes have a series of their own (src/documents/numbering.ts).
  const [{ effect }, number] = await Promise.all([
    applyCreditToInvoice(uow, locked, credit.total, today),
    documents.nextNumber(tx, scope, 'credit_note', settings.credit_note_prefix),
  ]);
  const inclusive = isTaxInclusive(invoice);
  const rates = new Map(invoice.taxAmounts.map((t) => [t.taxRateId, t]));
  const capNote = plan.capped
    .map(
      ([, asked, left]) => `A credit of ${asked} was capped at ${left}, what the invoice allowed.`,
    )
    .join(' ');
  const memo = [input.memo, capNote].filter((m) => m).join(' ') || null;
  const row = await insertCreditNote(tx, scope, {
    // The seller as it is now: the credit note is a document of its own.
    seller_snapshot: sellerSnapshot(settings, tenantName),
    id: newId('cn'),
    number,
    invoice_id: invoice.id,
    customer_id: invoice.customerId,
    currency: invoice.currency,
    reason: input.reason ?? null,
    memo,
    metadata: input.metadata ?? {},
    tax_inclusive: inclusive,
    subtotal: inclusive ? credit.total : credit.totalExcludingTax,
    tax: credit.tax,
    total_excluding_tax: credit.totalExcludingTax,
    total: credit.total,
    tax_amounts: credit.taxAmounts.map((t) => {
      const rate = rates.get(t.taxRateId)!;
      return { ...rate, taxableAmount: t.taxableAmount, amount: t.amount };
    }),
    credited_amount: effect.credited,
    out_of_band_amount: effect.outOfBand,
  });
  await insertCreditNoteLines(tx, scope, row, plan.lines);
  const note = creditNoteFromRow(row, plan.lines);
  uow.event('credit_note.created', note);
  return note;
}

export async function getCreditNote(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<CreditNote> {
  const row = await loadCreditNoteRow(db, scope, id);
  return creditNoteFromRow(row, await selectCreditNoteLines(db, scope, [id]));
}

/**
 * Voids a credit note: the invoice gets back exactly what this credit note took (its stored
 * effect), and an invoice it had paid is open again. A void invoice stays as it is (void is
 * final), so its credit notes cannot be voided.
 */
export function voidCreditNote(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
): Promise<Written<CreditNote>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const found = await loadCreditNoteRow(tx, scope, id);
    const today = todayUtcOf(clock);
    const { invoice } = await lockInvoiceForCredit(tx, scope, found.invoice_id, today);
    const row = (await selectCreditNote(tx, scope, id, { forUpdate: true }))!;
    if (row.status === 'void') throw new StateInvalidError('This credit note is void already.');
    if (invoice.status === 'void') {
      throw new StateInvalidError(
        'The invoice of this credit note is void; a void invoice and its credit notes are final.',
      );
    }
    await reverseCreditOnInvoice(
      uow,
      row.invoice_id,
      { credited: row.credited_amount, outOfBand: row.out_of_band_amount },
      today,
    );
    const voided = await markVoid(tx, scope, id);
    const note = creditNoteFromRow(voided, await selectCreditNoteLines(tx, scope, [id]));
    uow.event('credit_note.voided', note);
    return note;
  });
}

export async function listCreditNotes(
  db: Db,
  scope: TenantScope,
  filters: { invoiceId?: string | undefined },
  page: PageRequest,
): Promise<{ id: string; created_at: Date; creditNote: CreditNote }[]> {
  const rows = await selectCreditNotePage(db, scope, filters, page);
  const lines = await selectCreditNoteLines(
    db,
    scope,
    rows.map((r) => r.id),
  );
  const byNote = new Map<string, CreditNoteLineRow[]>();
  for (const line of lines) {
    const list = byNote.get(line.credit_note_id);
    if (list) list.push(line);
    else byNote.set(line.credit_note_id, [line]);
  }
  return rows.map((row) => ({
    id: row.id,
    created_at: row.created_at,
    creditNote: creditNoteFromRow(row, byNote.get(row.id) ?? []),
  }));
}
