// The invoice lifecycle after the draft: issue, void, mark uncollectible, send; and the PDF.
// Every move is checked against the state machine (state.ts) on the locked row. Paying is a
// payment (src/payments/, through ./payments.ts).
import type { Db, Queryable } from '../db/pool.ts';
import {
  unitOfWork,
  type UnitOfWork,
  type WriteRequest,
  type Written,
} from '../db/unit-of-work.ts';
import { getCustomerRow } from '../customers/service.ts';
import type { CustomerRow } from '../customers/store.ts';
import { ParameterMissingError } from '../errors.ts';
import { getTenant } from '../keys/service.ts';
import { formatMoney } from '../money/format.ts';
import type { TenantScope } from '../tenancy.ts';
import { queueMail } from '../mail/outbox.ts';
import { INVOICE_MAIL } from './mail.ts';
import { assertAllowed, invoiceFromRow, loadInvoiceRow, withLines } from './model.ts';
import { nextInvoiceNumber } from './numbering.ts';
import { renderInvoicePdf, type CreditNotesOfInvoice } from './pdf.ts';
import { priceWithRates } from './pricing.ts';
import type { CustomerSnapshot, Invoice } from './schemas.ts';
import { applyTransition, markIssued, selectLines, updateInvoiceEmail } from './store.ts';

function snapshotOf(customer: CustomerRow): CustomerSnapshot {
  return {
    name: customer.name,
    email: customer.email,
    address: customer.address,
    taxIds: customer.tax_ids,
    taxExempt: customer.tax_exempt,
  };
}

function addDays(date: Date, days: number): string {
  return new Date(date.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Issues a draft: prices it a last time (with the customer's tax status as it is now), freezes
 * the customer and the tax breakdown, and gives it the next number. An invoice whose total is
 * 0 is paid at once.
 */
export function issueInvoice(db: Db, request: WriteRequest, id: string): Promise<Written<Invoice>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await loadInvoiceRow(tx, scope, id, { forUpdate: true });
    assertAllowed(row, 'issue');
    const lines = await selectLines(tx, scope, [id]);
    const customer = await getCustomerRow(tx, scope, row.customer_id);
    const totals = await priceWithRates(
      tx,
      scope,
      row.default_tax_rates,
      lines,
      customer.tax_exempt,
      {
        newlyUsed: new Set(),
        param: 'lines',
      },
    );
    // Taken last: the counter row stays locked until this transaction ends.
    const number = await nextInvoiceNumber(tx, scope);
    const issued = await markIssued(
      tx,
      scope,
      id,
      {
        number,
        due_date:
          row.due_date ??
          (row.days_until_due === null ? null : addDays(new Date(), row.days_until_due)),
        customer_snapshot: snapshotOf(customer),
        paid: totals.total === 0,
      },
      totals,
    );
    const invoice = invoiceFromRow(issued, lines);
    uow.event('invoice.issued', invoice);
    if (invoice.status === 'paid') uow.event('invoice.paid', invoice);
    return invoice;
  });
}

async function transition(
  uow: UnitOfWork,
  id: string,
  action: 'void' | 'mark_uncollectible',
  eventType: string,
): Promise<Invoice> {
  const { tx, actor: scope } = uow;
  const row = await loadInvoiceRow(tx, scope, id, { forUpdate: true });
  assertAllowed(row, action);
  const invoice = await withLines(tx, scope, await applyTransition(tx, scope, id, action));
  uow.event(eventType, invoice);
  return invoice;
}

export function voidInvoice(db: Db, request: WriteRequest, id: string): Promise<Written<Invoice>> {
  return unitOfWork(db, request, (uow) => transition(uow, id, 'void', 'invoice.voided'));
}

export function markInvoiceUncollectible(
  db: Db,
  request: WriteRequest,
  id: string,
): Promise<Written<Invoice>> {
  return unitOfWork(db, request, (uow) =>
    transition(uow, id, 'mark_uncollectible', 'invoice.marked_uncollectible'),
  );
}

/**
 * The PDF of any invoice; a draft shows the customer as it is now, and no number. With
 * `creditNotesOf`, the PDF lists the invoice's credit notes.
 */
export async function getInvoicePdf(
  db: Queryable,
  scope: TenantScope,
  id: string,
  creditNotesOf?: CreditNotesOfInvoice,
): Promise<{ filename: string; pdf: Buffer }> {
  const invoice = await withLines(db, scope, await loadInvoiceRow(db, scope, id));
  const customer =
    invoice.customer ?? snapshotOf(await getCustomerRow(db, scope, invoice.customerId));
  const seller = await getTenant(db, scope.tenantId);
  const creditNotes = creditNotesOf ? await creditNotesOf(db, scope, id) : [];
  const pdf = await renderInvoicePdf({ invoice, seller, customer, creditNotes });
  return { filename: `${invoice.number ?? invoice.id}.pdf`, pdf };
}

/**
 * Queues the e-mail of an open invoice, with its PDF, to the customer's address as it is now
 * (an address corrected after issue should reach the customer; the PDF keeps the frozen one).
 * The mail worker sends it outside any transaction (src/mail/); sentAt and invoice.sent are
 * recorded when the mail server accepted it (./mail.ts).
 */
export function sendInvoice(db: Db, request: WriteRequest, id: string): Promise<Written<Invoice>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await loadInvoiceRow(tx, scope, id, { forUpdate: true });
    assertAllowed(row, 'send');
    const customer = await getCustomerRow(tx, scope, row.customer_id);
    if (!customer.email) {
      throw new ParameterMissingError(
        'customer.email',
        'The customer has no e-mail address; set one on the customer, then send again.',
      );
    }
    const invoice = await withLines(tx, scope, row);
    const seller = await getTenant(tx, scope.tenantId);
    const sellerName = seller.legalName ?? seller.name;
    const amount = formatMoney(invoice.amountRemaining, invoice.currency);
    await queueMail(uow, {
      kind: INVOICE_MAIL,
      subjectId: invoice.id,
      to: customer.email,
      replyTo: seller.email,
      subject: `Invoice ${invoice.number} from ${sellerName}`,
      body:
        `Dear ${customer.name ?? 'customer'},\n\n` +
        `please find attached invoice ${invoice.number} for ${amount}` +
        `${invoice.dueDate ? `, due on ${invoice.dueDate}` : ''}.\n\n${sellerName}\n`,
    });
    const queued = await updateInvoiceEmail(tx, scope, id, {
      status: 'queued',
      attempts: 0,
      lastError: null,
    });
    return withLines(tx, scope, queued);
  });
}
