// What a client sends to make and edit a draft invoice: its lines, the create and update bodies
// and the limits on them. They validate requests, type the handlers and feed the OpenAPI
// document; the invoice as shown is in schemas.ts.
import { Type, type Static } from '@sinclair/typebox';
import { Metadata, Nullable } from '../http/schemas.ts';
import { MAX_AMOUNT } from '../money/amount.ts';

/** At most 250 lines per invoice (docs/api.md, "Limits and rate limits"). */
export const MAX_LINES = 250;
/** Quantities are whole units; the bound keeps quantity × unitAmount meaningful. */
export const MAX_QUANTITY = 1_000_000_000;
export const MAX_TAX_RATES = 5;

export const Currency = Type.String({
  pattern: '^[a-z]{3}$',
  description: 'An ISO 4217 currency code in lower case (e.g. eur, jpy, kwd).',
  examples: ['eur'],
});
const DateOnly = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  description:
    'A calendar date, YYYY-MM-DD, in the years 0001 to 9999 (else 400 parameter_invalid).',
  examples: ['2026-12-31'],
});
const DaysUntilDue = Type.Integer({
  minimum: 0,
  maximum: 3650,
  description: 'Days from issue to the due date; the due date is set when the invoice is issued.',
});
export const TaxRateIds = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: MAX_TAX_RATES,
  uniqueItems: true,
  description: 'Tax rate ids (txr_…), at most 5, all inclusive or all exclusive.',
});
const Memo = Type.String({ maxLength: 5000 });
export const UnitCode = Type.String({
  pattern: '^[A-Z0-9]{2,3}$',
  description:
    'Unit of measure, a UN/ECE Recommendation 20 code (C62 one, HUR hour, DAY day, MON month, KGM kilogram, …); default C62.',
  examples: ['C62', 'HUR'],
});
const ServicePeriod = Type.Object(
  { start: DateOnly, end: DateOnly },
  {
    additionalProperties: false,
    title: 'ServicePeriodInput',
    description: 'The period the invoice covers (start ≤ end).',
  },
);
const Reference = (description: string) =>
  Type.String({ minLength: 1, maxLength: 200, description });
const documentFields = {
  supplyDate: DateOnly,
  servicePeriod: ServicePeriod,
  buyerReference: Reference(
    "The buyer's reference (EN 16931 BT-10, e.g. a Leitweg-ID); default: the customer's buyerReference, else the customer's id.",
  ),
  purchaseOrder: Reference('The purchase order number (BT-13).'),
};

export const LineCreate = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 500, examples: ['Consulting, May'] }),
    quantity: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_QUANTITY,
        description: 'Whole units; default 1.',
        examples: [1],
      }),
    ),
    unitAmount: Type.Integer({
      minimum: -MAX_AMOUNT,
      maximum: MAX_AMOUNT,
      description:
        'Minor units. May be negative (a discount line) as long as the invoice, and the lines under each tax rate, add up to at least 0.',
      examples: [150000],
    }),
    // An array replaces the invoice's default rates for this line ([]: no tax on it); null or
    // absent: the defaults apply.
    taxRates: Type.Optional(Nullable(TaxRateIds)),
    unitCode: Type.Optional(UnitCode),
  },
  {
    additionalProperties: false,
    title: 'LineCreate',
    description:
      "`taxRates` replaces the invoice's defaults for this line (`[]`: no tax); null or absent: the defaults apply.",
    examples: [
      { description: 'Consulting, May', quantity: 12, unitAmount: 15000, unitCode: 'HUR' },
    ],
  },
);
export type LineCreate = Static<typeof LineCreate>;

const Lines = Type.Array(LineCreate, { maxItems: MAX_LINES });

export const InvoiceCreate = Type.Object(
  {
    customerId: Type.String({ minLength: 1, maxLength: 100 }),
    currency: Currency,
    lines: Type.Optional(Lines),
    defaultTaxRates: Type.Optional(TaxRateIds),
    dueDate: Type.Optional(DateOnly),
    daysUntilDue: Type.Optional(DaysUntilDue),
    supplyDate: Type.Optional(documentFields.supplyDate),
    servicePeriod: Type.Optional(documentFields.servicePeriod),
    buyerReference: Type.Optional(documentFields.buyerReference),
    purchaseOrder: Type.Optional(documentFields.purchaseOrder),
    memo: Type.Optional(Memo),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    title: 'InvoiceCreate',
    description:
      'Give `supplyDate` (date of supply) or `servicePeriod`, not both; with neither, the issue date is the date of supply.',
    examples: [
      {
        customerId: 'cus_2xYq4mV9sLk3',
        currency: 'eur',
        lines: [{ description: 'Consulting, May', quantity: 12, unitAmount: 15000 }],
        daysUntilDue: 30,
        memo: 'Thank you for your business.',
      },
    ],
  },
);
export type InvoiceCreate = Static<typeof InvoiceCreate>;

/** Drafts take every field; issued invoices only `metadata` (anything else: 409). */
export const InvoiceUpdate = Type.Object(
  {
    lines: Type.Optional(
      Type.Array(LineCreate, { maxItems: MAX_LINES, description: 'Replaces every line.' }),
    ),
    defaultTaxRates: Type.Optional(TaxRateIds),
    dueDate: Type.Optional(Nullable(DateOnly)),
    daysUntilDue: Type.Optional(Nullable(DaysUntilDue)),
    supplyDate: Type.Optional(Nullable(documentFields.supplyDate)),
    servicePeriod: Type.Optional(Nullable(documentFields.servicePeriod)),
    buyerReference: Type.Optional(Nullable(documentFields.buyerReference)),
    purchaseOrder: Type.Optional(Nullable(documentFields.purchaseOrder)),
    memo: Type.Optional(Nullable(Memo)),
    metadata: Type.Optional(Nullable(Metadata)),
  },
  {
    additionalProperties: false,
    title: 'InvoiceUpdate',
    examples: [{ memo: 'Payable by bank transfer.', metadata: { orderId: '4711' } }],
  },
);
export type InvoiceUpdate = Static<typeof InvoiceUpdate>;
