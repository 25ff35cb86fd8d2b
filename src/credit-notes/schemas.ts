// Credit note schemas: they validate requests, type the handlers and feed the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import {
  Environment,
  Metadata,
  Nullable,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../http/schemas.ts';
import { EmailStatus } from '../invoices/schemas.ts';
import { MAX_AMOUNT } from '../money/amount.ts';
import { TaxAmount } from '../taxes/schemas.ts';

/** As many lines as an invoice may have (docs/api.md, "Limits and rate limits"). */
export const MAX_CREDIT_NOTE_LINES = 250;

export const CREDIT_NOTE_REASONS = [
  'duplicate',
  'fraudulent',
  'order_change',
  'product_unsatisfactory',
] as const;
export const CREDIT_NOTE_STATUSES = ['issued', 'void'] as const;

const Reason = StringEnum(CREDIT_NOTE_REASONS, {
  description: 'duplicate, fraudulent, order_change or product_unsatisfactory.',
});
const GrossAmount = (description: string) =>
  Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description });
const Memo = Type.String({ maxLength: 5000 });
const objectId = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 100, ...(description ? { description } : {}) });

export const CreditNoteLineCreate = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 500 }),
    amount: GrossAmount(
      'Gross, like the credit note’s `amount`: minor units including the tax credited with it.',
    ),
    invoiceLineId: Type.Optional(
      objectId(
        'An invoice line (il_…) to credit with its own tax rates; at most what the line was charged, tax included. Absent: the amount is split over the whole invoice like `amount`.',
      ),
    ),
  },
  { additionalProperties: false, title: 'CreditNoteLineCreate' },
);
export type CreditNoteLineCreate = Static<typeof CreditNoteLineCreate>;

export const CreditNoteCreate = Type.Object(
  {
    invoiceId: objectId('The invoice to credit (inv_…), open or paid.'),
    amount: Type.Optional(
      GrossAmount(
        'The gross amount to credit (tax included), split over the invoice’s tax breakdown. Give `amount` or `lines`, not both.',
      ),
    ),
    lines: Type.Optional(
      Type.Array(CreditNoteLineCreate, { minItems: 1, maxItems: MAX_CREDIT_NOTE_LINES }),
    ),
    reason: Type.Optional(Reason),
    memo: Type.Optional(Memo),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    title: 'CreditNoteCreate',
    examples: [{ invoiceId: 'inv_8kQm2Zt7Wc1p', amount: 5950, reason: 'order_change' }],
  },
);
export type CreditNoteCreate = Static<typeof CreditNoteCreate>;

export const CreditNoteLine = Type.Object(
  {
    id: Type.String({ description: 'cnl_…' }),
    description: Type.String(),
    amount: Type.Integer({ description: 'Gross: amountExcludingTax + tax.' }),
    amountExcludingTax: Type.Integer(),
    tax: Type.Integer(),
    invoiceLineId: Nullable(Type.String()),
  },
  { title: 'CreditNoteLine' },
);
export type CreditNoteLine = Static<typeof CreditNoteLine>;

export const CreditNoteStatus = StringEnum(CREDIT_NOTE_STATUSES);

export const CreditNote = Type.Object(
  {
    id: Type.String({ description: 'cn_…' }),
    object: Type.Literal('credit_note'),
    number: Type.String({ description: 'CN-000001…, gapless per tenant and environment.' }),
    invoiceId: Type.String(),
    customerId: Type.String(),
    status: CreditNoteStatus,
    currency: Type.String({ description: 'Always the invoice’s currency.' }),
    amount: Type.Integer({ description: 'The gross amount credited: the same as `total`.' }),
    subtotal: Type.Integer({
      description: 'As on the invoice: excluding tax (exclusive rates), including it (inclusive).',
    }),
    tax: Type.Integer({ description: 'Σ taxAmounts.amount.' }),
    totalExcludingTax: Type.Integer(),
    total: Type.Integer(),
    taxAmounts: Type.Array(TaxAmount, {
      description: 'The part of the invoice’s frozen breakdown credited, one entry per rate.',
    }),
    creditedAmount: Type.Integer({
      description: 'The part that lowered what the invoice owed (amountCredited).',
    }),
    outOfBandAmount: Type.Integer({
      description: 'The part credited on a paid invoice: refunded outside the API.',
    }),
    lines: Type.Array(CreditNoteLine, { description: 'Empty for a credit of an `amount`.' }),
    reason: Nullable(Reason),
    sentAt: Nullable(Timestamp),
    email: Nullable(EmailStatus),
    memo: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.String()),
    environment: Environment,
    createdAt: Timestamp,
    voidedAt: Nullable(Timestamp),
  },
  { title: 'CreditNote' },
);
export type CreditNote = Static<typeof CreditNote>;

export const CreditNoteListQuery = Type.Object(
  {
    ...PageQuery,
    invoiceId: Type.Optional(objectId('Only the credit notes of this invoice.')),
  },
  { additionalProperties: false },
);
