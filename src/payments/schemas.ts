// Payment schemas: they validate requests, type the handlers and feed the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { Environment, Nullable, StringEnum, Timestamp } from '../http/schemas.ts';
import { ListQuery, ObjectId } from '../http/resource-schemas.ts';
import { INVOICE_STATUSES } from '../invoices/state.ts';
import { MAX_AMOUNT } from '../money/amount.ts';

export const PAYMENT_METHODS = [
  'bank_transfer',
  'card',
  'cash',
  'check',
  'direct_debit',
  'other',
] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export const PAYMENT_STATUSES = ['succeeded', 'void'] as const;

/** An invoice takes at most this many payments, void ones included (it lists them all). */
export const MAX_PAYMENTS_PER_INVOICE = 100;

const Method = StringEnum(PAYMENT_METHODS, {
  description: 'bank_transfer, card, cash, check, direct_debit or other.',
});

const Reference = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'Your reference: a bank transaction id, a cheque number…',
});

const ReceivedAt = Type.String({
  format: 'date-time',
  description:
    'When the money arrived (ISO 8601 with a time zone); default: now. Not before 1970 and not in the future (5 minutes of clock skew allowed).',
});

export const PaymentCreate = Type.Object(
  {
    amount: Type.Integer({
      minimum: 1,
      maximum: MAX_AMOUNT,
      description:
        'Minor units of the invoice’s currency; at most its amountRemaining (else 400 parameter_invalid, param amount).',
      examples: [5000],
    }),
    method: Method,
    reference: Type.Optional(Reference),
    receivedAt: Type.Optional(ReceivedAt),
  },
  {
    additionalProperties: false,
    title: 'PaymentCreate',
    examples: [{ amount: 5000, method: 'bank_transfer', reference: 'SEPA 2026-11-30 4711' }],
  },
);
export type PaymentCreate = Static<typeof PaymentCreate>;

/** POST /v1/invoices/{id}/pay: the payment of the whole remainder, described as /payments takes it. */
export const InvoicePay = Type.Object(
  {
    method: Type.Optional(
      StringEnum(PAYMENT_METHODS, {
        description: 'bank_transfer, card, cash, check, direct_debit or other (default).',
      }),
    ),
    reference: Type.Optional(Reference),
    receivedAt: Type.Optional(ReceivedAt),
  },
  {
    additionalProperties: false,
    title: 'InvoicePay',
    examples: [{ method: 'bank_transfer', reference: 'SEPA 2026-11-30 4711' }],
  },
);
export type InvoicePay = Static<typeof InvoicePay>;

export const Payment = Type.Object(
  {
    id: Type.String({ description: 'pay_…' }),
    object: Type.Literal('payment'),
    invoiceId: Type.String(),
    customerId: Type.String(),
    amount: Type.Integer({ description: 'Minor units of `currency`.' }),
    currency: Type.String({ description: 'Always the invoice’s currency.' }),
    method: Method,
    reference: Nullable(Type.String()),
    status: StringEnum(PAYMENT_STATUSES, {
      description:
        'succeeded: counted in the invoice’s amountPaid; void: taken back (a bounced transfer), no longer counted.',
    }),
    receivedAt: Timestamp,
    createdAt: Timestamp,
    voidedAt: Nullable(Timestamp),
    environment: Environment,
  },
  { title: 'Payment' },
);
export type Payment = Static<typeof Payment>;

/** The invoice a payment was recorded on, as the payment left it. */
export const PaidInvoiceState = Type.Object(
  {
    id: Type.String(),
    status: StringEnum(INVOICE_STATUSES, {
      description: 'The invoice’s status after this payment: paid when nothing remains to pay.',
    }),
    amountRemaining: Type.Integer({
      description: 'What the invoice still owes after this payment, in minor units.',
    }),
  },
  { title: 'PaidInvoiceState' },
);

/** The answer to POST /v1/invoices/{id}/payments: the payment, and its invoice's new state. */
export const RecordedPayment = Type.Object(
  {
    ...Payment.properties,
    invoice: PaidInvoiceState,
  },
  { title: 'RecordedPayment' },
);
export type RecordedPayment = Static<typeof RecordedPayment>;

export const PaymentListQuery = ListQuery({
  invoiceId: Type.Optional(ObjectId('Only the payments of this invoice.')),
  customerId: Type.Optional(ObjectId('Only the payments of this customer’s invoices.')),
});
