// Invoice rules for drafts: creating, editing and deleting one, with its fields' checks. A
// draft's lines (and its repricing) are in lines.ts, the lifecycle (issue, void, send, PDF) in
// lifecycle.ts, the credit-note hooks in credits.ts and the payment and overdue hooks in
// payments.ts; this file is the module's public face and re-exports them.
import { todayUtcOf, utcDateOf, type Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { ParameterInvalidError, StateInvalidError } from '../errors.ts';
import { checkedDate as checkedCalendarDate } from '../dates.ts';
import { isCurrency } from '../money/currency.ts';
import type { HostedLinks } from '../hosted/links.ts';
import { shownByWrite } from './hosted-link.ts';
import { withReadiness } from './einvoice-readiness.ts';
import type { InvoiceCreate, InvoiceUpdate } from './draft-schemas.ts';
import type { Invoice } from './schemas.ts';
import { loadInvoiceRow, lockInvoiceFor, withLines } from './model.ts';
import { insertNewDraft, newLines, rateIdsOf, saveDraft } from './lines.ts';
import { deleteAllLines, insertLines, selectLines } from './lines-store.ts';
import { deleteInvoice, updateMetadata, type DraftFields } from './store.ts';

export {
  getInvoiceEinvoice,
  getInvoicePdf,
  invoiceModel,
  issuedInvoiceFormats,
} from './documents.ts';
export {
  issueInvoice,
  issueInvoiceIn,
  sendInvoice,
  sendInvoiceIn,
  transitionInvoice,
  transitionInvoiceIn,
  type AlsoInTransaction,
  type BatchIssue,
  type IssuedRow,
} from './lifecycle.ts';
export { readShared, type SharedReads } from './shared-reads.ts';
export { addInvoiceLine, removeInvoiceLine } from './lines.ts';
export { lineQuantity, type LineQuantity } from './exact-quantity.ts';
export {
  addSubscriptionLines,
  billedLine,
  createSubscriptionDraft,
  linesBelowZero,
  priceSubscriptionLines,
  refreshSubscriptionLines,
  type PricedLine,
  type SubscriptionDraft,
} from './subscription-drafts.ts';
export {
  beforeSignature,
  hostedLinkText,
  invoiceMail,
  invoicePdfs,
  invoiceStateText,
  INVOICE_MAIL,
  type InvoiceCreditNotes,
  type MailedCreditNote,
} from './mail.ts';
export { invoiceFromRow } from './model.ts';
export { getInvoice, listInvoices, showInvoice } from './reading.ts';
export { replaceHostedLink, shownByWrite } from './hosted-link.ts';
export {
  applyPaymentToInvoice,
  lockInvoiceForPayment,
  lockInvoiceOfPayment,
  recordOverdueInvoices,
  reversePaymentOnInvoice,
  scopesWithNewlyOverdueInvoices,
  type PayableInvoice,
} from './payments.ts';
export {
  applyCreditToInvoice,
  lockInvoiceForCredit,
  reverseCreditOnInvoice,
  type CreditEffect,
  type LockedForCredit,
} from './credits.ts';

function checkedDate(value: string | null | undefined, param: string): string | null {
  return value == null ? null : checkedCalendarDate(value, param);
}

/** The date of supply or the service period (EN 16931 BT-72 / BG-14), checked; not both. */
function supplyFields(
  supplyDate: string | null,
  period: { start: string; end: string } | null,
): Pick<DraftFields, 'supply_date' | 'service_period_start' | 'service_period_end'> {
  if (supplyDate !== null && period !== null) {
    throw new ParameterInvalidError('servicePeriod', 'Give supplyDate or servicePeriod, not both.');
  }
  const start = checkedDate(period?.start, 'servicePeriod.start');
  const end = checkedDate(period?.end, 'servicePeriod.end');
  if (start !== null && end !== null && start > end) {
    throw new ParameterInvalidError('servicePeriod.end', 'servicePeriod.end is before its start.');
  }
  return {
    supply_date: checkedDate(supplyDate, 'supplyDate'),
    service_period_start: start,
    service_period_end: end,
  };
}

export function createInvoice(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  input: InvoiceCreate,
): Promise<Written<Invoice>> {
  if (!isCurrency(input.currency)) {
    throw new ParameterInvalidError('currency', `Unknown currency '${input.currency}'.`);
  }
  if (input.dueDate !== undefined && input.daysUntilDue !== undefined) {
    throw new ParameterInvalidError('daysUntilDue', 'Give dueDate or daysUntilDue, not both.');
  }
  const fields: DraftFields = {
    default_tax_rates: input.defaultTaxRates ?? [],
    due_date: checkedDate(input.dueDate, 'dueDate'),
    days_until_due: input.daysUntilDue ?? null,
    memo: input.memo ?? null,
    metadata: input.metadata ?? {},
    ...supplyFields(input.supplyDate ?? null, input.servicePeriod ?? null),
    buyer_reference: input.buyerReference ?? null,
    purchase_order: input.purchaseOrder ?? null,
  };
  // A line whose amount leaves the safe range is refused with the body, before any look-up.
  const lines = newLines(input.lines ?? [], 1, (i) => `lines.${i}.`);
  return unitOfWork(db, request, (uow) =>
    insertNewDraft(
      uow,
      {
        customer_id: input.customerId,
        currency: input.currency,
        subscription_id: null,
        billing_reason: 'manual',
      },
      fields,
      lines,
      { newlyUsed: rateIdsOf(fields.default_tax_rates, lines), param: 'lines' },
      clock.now(),
    ),
  );
}

export function updateInvoice(
  db: Db,
  clock: Clock,
  links: HostedLinks,
  request: WriteRequest,
  id: string,
  patch: InvoiceUpdate,
): Promise<Written<Invoice>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await loadInvoiceRow(tx, scope, id, { forUpdate: true });
    const metadata = patch.metadata === undefined ? row.metadata : (patch.metadata ?? {});
    let invoice: Invoice;
    if (row.status !== 'draft') {
      // An issued invoice is a legal document: only metadata, which is ours, may change.
      const fields = Object.keys(patch).filter((k) => k !== 'metadata');
      if (fields.length > 0) {
        throw new StateInvalidError(
          `An invoice that is ${row.status} cannot change (${fields.join(', ')}); only metadata can.`,
        );
      }
      const updated = await updateMetadata(tx, scope, id, metadata);
      invoice = await withLines(tx, scope, updated, todayUtcOf(clock));
    } else {
      if (patch.dueDate != null && patch.daysUntilDue != null) {
        throw new ParameterInvalidError('daysUntilDue', 'Give dueDate or daysUntilDue, not both.');
      }
      const dueDate =
        patch.dueDate === undefined ? row.due_date : checkedDate(patch.dueDate, 'dueDate');
      const daysUntilDue =
        patch.daysUntilDue === undefined ? row.days_until_due : patch.daysUntilDue;
      // Setting one of the two clears the other.
      // Setting one of supplyDate and servicePeriod clears the other.
      const period =
        row.service_period_start === null
          ? null
          : { start: row.service_period_start, end: row.service_period_end! };
      const supply =
        patch.supplyDate != null
          ? supplyFields(patch.supplyDate, null)
          : patch.servicePeriod != null
            ? supplyFields(null, patch.servicePeriod)
            : supplyFields(
                patch.supplyDate === undefined ? row.supply_date : null,
                patch.servicePeriod === undefined ? period : null,
              );
      if (patch.supplyDate != null && patch.servicePeriod != null) {
        throw new ParameterInvalidError(
          'servicePeriod',
          'Give supplyDate or servicePeriod, not both.',
        );
      }
      const fields: DraftFields = {
        default_tax_rates: patch.defaultTaxRates ?? row.default_tax_rates,
        due_date: patch.daysUntilDue != null ? null : dueDate,
        days_until_due: patch.dueDate != null ? null : daysUntilDue,
        memo: patch.memo === undefined ? row.memo : patch.memo,
        metadata,
        ...supply,
        buyer_reference:
          patch.buyerReference === undefined ? row.buyer_reference : patch.buyerReference,
        purchase_order:
          patch.purchaseOrder === undefined ? row.purchase_order : patch.purchaseOrder,
      };
      let lines = await selectLines(tx, scope, [id]);
      const before = rateIdsOf(row.default_tax_rates, lines);
      if (patch.lines !== undefined) {
        await deleteAllLines(tx, scope, id);
        const replaced = newLines(patch.lines, 1, (i) => `lines.${i}.`);
        await insertLines(tx, scope, id, replaced);
        lines = replaced.map((l) => ({ ...l, invoice_id: id }));
      }
      const after = rateIdsOf(fields.default_tax_rates, lines);
      invoice = await saveDraft(
        tx,
        scope,
        row,
        fields,
        lines,
        {
          newlyUsed: new Set([...after].filter((r) => !before.has(r))),
          param: patch.lines !== undefined ? 'lines' : 'defaultTaxRates',
        },
        clock.now(),
      );
    }
    uow.event('invoice.updated', invoice);
    return shownByWrite(uow, links, invoice);
  });
}

export function deleteDraftInvoice(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
): Promise<Written<{ id: string; object: 'invoice'; deleted: true }>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await lockInvoiceFor(tx, scope, id, 'delete');
    const now = clock.now();
    const invoice = await withReadiness(
      tx,
      scope,
      await withLines(tx, scope, row, utcDateOf(now)),
      now,
    );
    await deleteInvoice(tx, scope, id);
    uow.event('invoice.deleted', invoice);
    return { id, object: 'invoice', deleted: true };
  });
}
