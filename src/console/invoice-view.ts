// What an invoice's console page shows (templates/invoice.eta): the invoice as the invoices
// service shows it (lines, tax breakdown, totals, payments), its customer, its credit notes,
// its documents, and the actions the user's role and the invoice's status allow.
import type { FastifyRequest } from 'fastify';
import type { Composition } from '../composition.ts';
import { formatAmount, formatDate, formatPercentage, formatQuantity } from '../documents/i18n.ts';
import { PAYMENT_METHODS } from '../payments/schemas.ts';
import { CREDIT_NOTE_REASONS } from '../credit-notes/schemas.ts';
import { toDecimalString } from '../money/format.ts';
import { localDate } from '../subscriptions/calendar.ts';
import { sessionOf, textOf } from './page.ts';
import { permits } from './roles.ts';

/** Credit notes shown on an invoice's page: as many as the API lists on a page at most. */
const CREDIT_NOTES_SHOWN = 100;

export async function invoiceView(deps: Composition, request: FastifyRequest, id: string) {
  const { invoices, customers, creditNotes } = deps;
  const session = sessionOf(request);
  const scope = session.actor;
  const { lang, timeZone } = request.console;
  const t = textOf(request);
  const invoice = await invoices.show(scope, id);
  const [customer, notes] = await Promise.all([
    customers.read(scope, invoice.customerId),
    invoice.status === 'draft'
      ? []
      : creditNotes.list(scope, { invoiceId: id }, { limit: CREDIT_NOTES_SHOWN, after: null }),
  ]);
  const money = (amount: number) => formatAmount(amount, invoice.currency, lang);
  const day = (iso: string | null | undefined) => (iso ? formatDate(iso.slice(0, 10), lang) : '—');
  const moment = (iso: string | null) => (iso ? day(localDate(new Date(iso), timeZone)) : '—');
  const status = invoice.status;
  const canWrite = permits(session.user.role, 'invoices:write');
  const issued = status !== 'draft';
  return {
    title: invoice.number ?? t('console.invoice.draft'),
    invoice: {
      id: invoice.id,
      status: t(`console.invoice.status.${status}`),
      statusCode: status,
      overdue: invoice.overdue,
      currency: invoice.currency.toUpperCase(),
      issued: moment(invoice.issuedAt),
      due: day(invoice.dueDate),
      paid: moment(invoice.paidAt),
      sent: moment(invoice.sentAt),
      email: invoice.email ? t(`console.invoices.email.${invoice.email.status}`) : null,
      memo: invoice.memo,
      subtotal: money(invoice.subtotal),
      tax: money(invoice.tax),
      total: money(invoice.total),
      paidAmount: money(invoice.amountPaid),
      credited: money(invoice.amountCredited + invoice.outOfBandAmount),
      remaining: money(invoice.amountRemaining),
    },
    customer: { id: customer.id, name: customer.name ?? customer.id },
    lines: invoice.lines.map((line) => ({
      id: line.id,
      description: line.description,
      quantity: formatQuantity(line.quantityDecimal ?? line.quantity, lang),
      unit: line.unitAmount === null ? '—' : money(line.unitAmount),
      amount: money(line.amount),
    })),
    taxes: invoice.taxAmounts.map((tax) => ({
      name: tax.displayName,
      rate: formatPercentage(String(tax.percentage), lang),
      taxable: money(tax.taxableAmount),
      amount: money(tax.amount),
    })),
    payments: invoice.payments.map((p) => ({
      date: moment(p.receivedAt),
      method: t(`console.invoices.method.${p.method}`),
      reference: p.reference ?? '',
      amount: money(p.amount),
      voided: p.status === 'void',
    })),
    creditNotes: notes.slice(0, CREDIT_NOTES_SHOWN).map(({ creditNote: c }) => ({
      number: c.number,
      date: moment(c.createdAt),
      amount: money(c.total),
      voided: c.status === 'void',
    })),
    documents: {
      pdf: `/console/invoices/${invoice.id}/pdf`,
      einvoice: issued && invoice.einvoice?.ready === true,
    },
    actions: {
      issue: canWrite && status === 'draft',
      void: canWrite && (status === 'open' || status === 'uncollectible'),
      send: canWrite && issued && status !== 'void',
      pay: canWrite && status === 'open',
      credit: canWrite && (status === 'open' || status === 'paid'),
    },
    // The payment form's defaults: the remainder, today in the tenant's calendar.
    remainingInput: toDecimalString(invoice.amountRemaining, invoice.currency),
    today: localDate(deps.clock.now(), timeZone),
    methods: PAYMENT_METHODS.map((m) => ({ value: m, label: t(`console.invoices.method.${m}`) })),
    reasons: CREDIT_NOTE_REASONS.map((r) => ({
      value: r,
      label: t(`console.invoices.reason.${r}`),
    })),
  };
}
