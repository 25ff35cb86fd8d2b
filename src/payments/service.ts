// Payment rules: what may be paid, recording a payment and its effect on the invoice (through
// the invoice module's payment hooks), voiding one, events. Every write locks the invoice row
// first: payments, voids and credit notes of one invoice queue on that lock, so the amounts
// stay exact under concurrency. Lock order everywhere: invoice row, then payment row.
import { todayUtcOf, type Clock } from '../clock.ts';
import type { Db, Queryable } from '../db/pool.ts';
import { existingRowById } from '../db/row-by-id.ts';
import {
  unitOfWork,
  type UnitOfWork,
  type WriteRequest,
  type Written,
} from '../db/unit-of-work.ts';
import { ParameterInvalidError, StateInvalidError } from '../errors.ts';
import { newId } from '../ids.ts';
import {
  applyPaymentToInvoice,
  lockInvoiceForPayment,
  lockInvoiceOfPayment,
  reversePaymentOnInvoice,
  shownByWrite,
} from '../invoices/service.ts';
import type { HostedLinks } from '../hosted/links.ts';
import type { Invoice } from '../invoices/schemas.ts';
import type { TenantScope } from '../tenancy.ts';
import {
  MAX_PAYMENTS_PER_INVOICE,
  type InvoicePay,
  type Payment,
  type PaymentCreate,
  type PaymentMethod,
  type RecordedPayment,
} from './schemas.ts';
import {
  insertPayment,
  markPaymentVoid,
  selectPayment,
  selectPaymentPage,
  type PaymentRow,
} from './store.ts';

/** Clock skew allowed on receivedAt: a payment cannot have arrived in the future. */
const FUTURE_SKEW_MS = 5 * 60_000;

export function paymentFromRow(row: PaymentRow): Payment {
  return {
    id: row.id,
    object: 'payment',
    invoiceId: row.invoice_id,
    customerId: row.customer_id,
    amount: row.amount,
    currency: row.currency,
    method: row.method,
    reference: row.reference,
    status: row.status,
    receivedAt: row.received_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    voidedAt: row.voided_at?.toISOString() ?? null,
    environment: row.environment,
  };
}

function receivedAtOf(clock: Clock, value: string | undefined): Date | null {
  if (value === undefined) return null;
  const date = new Date(value);
  if (
    Number.isNaN(date.getTime()) ||
    date.getTime() < 0 ||
    date.getTime() > clock.nowMs() + FUTURE_SKEW_MS
  ) {
    throw new ParameterInvalidError(
      'receivedAt',
      'receivedAt must be an ISO 8601 date-time with a time zone, from 1970 on and not in the future.',
    );
  }
  return date;
}

interface NewPaymentInput {
  amount: number;
  method: PaymentMethod;
  reference: string | null;
  receivedAt: Date | null;
}

/**
 * Records a payment on an invoice the unit of work has not touched yet, and applies it:
 * payment.created, then invoice.paid (settled) or invoice.updated. `amount` null pays the
 * whole remainder.
 */
async function recordPayment(
  uow: UnitOfWork,
  invoiceId: string,
  input: Omit<NewPaymentInput, 'amount'> & { amount: number | null },
  today: string,
): Promise<{ payment: Payment; invoice: Invoice }> {
  const { tx, actor: scope } = uow;
  const invoice = await lockInvoiceForPayment(tx, scope, invoiceId);
  const amount = input.amount ?? invoice.amountRemaining;
  if (amount > invoice.amountRemaining) {
    throw new ParameterInvalidError(
      'amount',
      `A payment is at most what the invoice still owes, ${invoice.amountRemaining}.`,
    );
  }
  // The invoice lists its payments: their number is bounded, as its lines are. The payment
  // and the invoice's update are sent at once (see applyPaymentToInvoice).
  const recorded = insertPayment(
    tx,
    scope,
    {
      id: newId('pay'),
      invoice_id: invoice.id,
      customer_id: invoice.customerId,
      currency: invoice.currency,
      amount,
      method: input.method,
      reference: input.reference,
      received_at: input.receivedAt,
    },
    MAX_PAYMENTS_PER_INVOICE,
  ).then((row) => {
    if (!row) {
      throw new StateInvalidError(
        `This invoice has ${MAX_PAYMENTS_PER_INVOICE} payments, the most one invoice takes.`,
      );
    }
    const payment = paymentFromRow(row);
    uow.event('payment.created', payment);
    return payment;
  });
  const updated = await applyPaymentToInvoice(uow, invoice, amount, today, recorded);
  return { payment: await recorded, invoice: updated };
}

/**
 * A payment received for an open or uncollectible invoice (409 state_invalid otherwise), of
 * more than 0 and at most what it still owes (400 parameter_invalid, param amount). The answer
 * tells the invoice's state after it, so that a client need not read the invoice again; it is
 * the stored result an idempotent retry gets back, as it was.
 */
export function createPayment(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  invoiceId: string,
  input: PaymentCreate,
): Promise<Written<RecordedPayment>> {
  const receivedAt = receivedAtOf(clock, input.receivedAt);
  return unitOfWork(db, request, async (uow) => {
    const { payment, invoice } = await recordPayment(
      uow,
      invoiceId,
      {
        amount: input.amount,
        method: input.method,
        reference: input.reference ?? null,
        receivedAt,
      },
      todayUtcOf(clock),
    );
    return {
      ...payment,
      invoice: { id: invoice.id, status: invoice.status, amountRemaining: invoice.amountRemaining },
    };
  });
}

/**
 * POST /invoices/{id}/pay: a payment of the whole remainder, described as POST …/payments
 * takes it (method `other` when none is given); the invoice as the API shows it, with its
 * hosted URL.
 */
export function payInvoice(
  db: Db,
  clock: Clock,
  links: HostedLinks,
  request: WriteRequest,
  invoiceId: string,
  input: InvoicePay = {},
) {
  const receivedAt = receivedAtOf(clock, input.receivedAt);
  return unitOfWork(db, request, async (uow) => {
    const [{ invoice }, url] = await Promise.all([
      recordPayment(
        uow,
        invoiceId,
        {
          amount: null,
          method: input.method ?? 'other',
          reference: input.reference ?? null,
          receivedAt,
        },
        todayUtcOf(clock),
      ),
      // Sent right after the invoice's lock, in its round trip.
      links.urlFor(uow.tx, uow.actor, invoiceId),
    ]);
    return shownByWrite(uow, links, invoice, url);
  });
}

const loadPayment = existingRowById(selectPayment, 'payment');

export async function getPayment(db: Queryable, scope: TenantScope, id: string): Promise<Payment> {
  return paymentFromRow(await loadPayment(db, scope, id));
}

/**
 * Voids a payment (a bounced transfer): the invoice's amountPaid drops by it, and a paid
 * invoice is open again (payment.voided, invoice.updated). A void payment, or one of a void
 * invoice, is 409 state_invalid.
 */
export function voidPayment(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
): Promise<Written<Payment>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const found = await loadPayment(tx, scope, id);
    // The invoice first (the lock order), then the payment, read again under both locks.
    const invoiceStatus = await lockInvoiceOfPayment(tx, scope, found.invoice_id);
    const row = (await selectPayment(tx, scope, id, { forUpdate: true }))!;
    if (row.status === 'void') throw new StateInvalidError('This payment is void already.');
    if (invoiceStatus === 'void') {
      throw new StateInvalidError(
        'The invoice of this payment is void; a void invoice and its payments are final.',
      );
    }
    const voided = paymentFromRow(await markPaymentVoid(tx, scope, id));
    uow.event('payment.voided', voided);
    await reversePaymentOnInvoice(uow, row.invoice_id, row.amount, todayUtcOf(clock));
    return voided;
  });
}

/** One page of payments, newest first, of an invoice or customer if asked (the store's page reader). */
export const listPayments = selectPaymentPage;
