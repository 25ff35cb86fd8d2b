// Invoice schemas: they validate requests, type the handlers and feed the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { AddressOut, ElectronicAddressOut, TaxExempt, TaxId } from '../customers/schemas.ts';
import {
  Environment,
  Metadata,
  Nullable,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../http/schemas.ts';
import { MAX_AMOUNT } from '../money/amount.ts';
import { Payment } from '../payments/schemas.ts';
import { TaxAmount } from '../taxes/schemas.ts';
import { INVOICE_STATUSES } from './state.ts';

/** At most 250 lines per invoice (docs/api.md, "Limits and rate limits"). */
export const MAX_LINES = 250;
/** Quantities are whole units; the bound keeps quantity × unitAmount meaningful. */
export const MAX_QUANTITY = 1_000_000_000;
export const MAX_TAX_RATES = 5;

const Currency = Type.String({
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
const TaxRateIds = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: MAX_TAX_RATES,
  uniqueItems: true,
  description: 'Tax rate ids (txr_…), at most 5, all inclusive or all exclusive.',
});
const Memo = Type.String({ maxLength: 5000 });
const UnitCode = Type.String({
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

export const Line = Type.Object(
  {
    id: Type.String({ description: 'il_…' }),
    description: Type.String(),
    quantity: Type.Integer(),
    unitAmount: Type.Integer(),
    amount: Type.Integer({ description: 'quantity × unitAmount' }),
    taxRates: Nullable(Type.Array(Type.String())),
    unitCode: Type.String(),
  },
  { title: 'Line' },
);
export type Line = Static<typeof Line>;

const AddressSnapshot = AddressOut;

export const CustomerSnapshot = Type.Object(
  {
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    address: Nullable(AddressSnapshot),
    taxIds: Type.Array(TaxId),
    taxExempt: TaxExempt,
    locale: Type.String({
      description: "The documents' language (the customer's, else the tenant's).",
    }),
    electronicAddress: Nullable(ElectronicAddressOut),
  },
  {
    title: 'CustomerSnapshot',
    description: 'The customer as it was when the invoice was issued; null on drafts.',
  },
);
export type CustomerSnapshot = Static<typeof CustomerSnapshot>;

/** The seller as it was at issue: the tenant's settings that documents print. */
export interface SellerSnapshot {
  name: string;
  address: Static<typeof AddressSnapshot> | null;
  taxId: string | null;
  companyRegistration: string | null;
  email: string | null;
  phone: string | null;
  electronicAddress: { scheme: string; value: string } | null;
  iban: string | null;
  bic: string | null;
  accountName: string | null;
  paymentInstructions: string | null;
  paymentTerms: string | null;
}

export const InvoiceStatus = StringEnum(INVOICE_STATUSES, {
  description: 'draft → open (issue) → paid, void or uncollectible.',
});

/** The last e-mail of a document (POST …/send). */
export const EmailStatus = Type.Object(
  {
    status: StringEnum(['queued', 'sent', 'failed']),
    attempts: Type.Integer({ description: 'Attempts to hand it to the mail server so far.' }),
    lastError: Nullable(Type.String({ description: "The mail server's last refusal." })),
  },
  {
    title: 'EmailStatus',
    description:
      'The last e-mail of the document (POST /send): queued until the mail server accepts it (then sentAt is set and the .sent event emitted), retried with back-off while it refuses; null if never sent.',
  },
);

/** Whether the invoice's data make an EN 16931 e-invoice (./einvoice-readiness.ts). */
export const EinvoiceReadiness = Type.Object(
  {
    ready: Type.Boolean({
      description: 'True when both e-invoices (UBL and CII) can be produced from these data.',
    }),
    missing: Type.Array(Type.String(), {
      description:
        'The fields to set or fix, named as `409 einvoice_incomplete` names them (`customer.electronicAddress`, `seller.phone`, `lines[0].taxRates`, …): those the UBL e-invoice lacks, then those only the CII one lacks. Empty when ready.',
    }),
  },
  {
    title: 'EinvoiceReadiness',
    description:
      "Whether the invoice's data make an EN 16931 e-invoice, checked by the same rules as `GET /v1/invoices/{id}/e-invoice`. On a draft: as issuing it now would freeze it (the current settings and customer, the due and supply dates and buyer reference issue would give). On an issued invoice: from the data frozen at issue, so `ready: false` means its e-invoice requests answer 409 einvoice_incomplete with these fields. null only on invoices issued before sellers were frozen with them. With the setting `einvoiceRequired`, issuing a draft that is not ready is 409 einvoice_incomplete.",
  },
);
export type EinvoiceReadiness = Static<typeof EinvoiceReadiness>;

export const Invoice = Type.Object(
  {
    id: Type.String({ description: 'inv_…' }),
    object: Type.Literal('invoice'),
    customerId: Type.String(),
    number: Nullable(Type.String({ description: 'INV-000001…; null until issued.' })),
    status: InvoiceStatus,
    currency: Type.String(),
    lines: Type.Array(Line),
    defaultTaxRates: Type.Array(Type.String()),
    subtotal: Type.Integer({ description: 'Σ line amounts.' }),
    tax: Type.Integer({ description: 'Σ taxAmounts.amount.' }),
    totalExcludingTax: Type.Integer(),
    total: Type.Integer({ description: 'subtotal + tax (exclusive rates); subtotal (inclusive).' }),
    taxAmounts: Type.Array(TaxAmount),
    amountPaid: Type.Integer(),
    amountCredited: Type.Integer(),
    outOfBandAmount: Type.Integer({
      description: 'Credited after payment: refunded outside the API.',
    }),
    amountRemaining: Type.Integer({ description: 'total − amountPaid − amountCredited' }),
    payments: Type.Array(Payment, {
      description:
        'Every payment of the invoice, oldest first, void ones included (status void; amountPaid counts the others). At most 100.',
    }),
    dueDate: Nullable(Type.String()),
    overdue: Type.Boolean({
      description:
        'True while the invoice is open and its dueDate (a UTC calendar date) has passed. Uncollectible invoices are not overdue.',
    }),
    daysUntilDue: Nullable(Type.Integer()),
    supplyDate: Nullable(
      Type.String({ description: 'Date of supply; the issue date by default.' }),
    ),
    servicePeriod: Nullable(
      Type.Object({ start: Type.String(), end: Type.String() }, { title: 'ServicePeriod' }),
    ),
    buyerReference: Nullable(Type.String()),
    purchaseOrder: Nullable(Type.String()),
    issuedAt: Nullable(Timestamp),
    paidAt: Nullable(Timestamp),
    voidedAt: Nullable(Timestamp),
    markedUncollectibleAt: Nullable(Timestamp),
    sentAt: Nullable(Timestamp),
    email: Nullable(EmailStatus),
    memo: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.String()),
    customer: Nullable(CustomerSnapshot),
    einvoice: Nullable(EinvoiceReadiness),
    hostedInvoiceUrl: Nullable(
      Type.String({
        format: 'uri',
        description:
          "The hosted invoice page, `{PUBLIC_URL}/i/{token}`: a capability URL that shows the invoice to whoever holds it, without a login, in the customer's language, with its status, payments and downloads of its PDF and e-invoices. Made when the invoice is issued; valid until 120 days after the due date (or the issue date), and at least 120 days from when it was made; `POST /v1/invoices/{id}/hosted-link` replaces it (the old URL stops at once). null on drafts, once expired, and on invoices issued before hosted pages existed (make one with hosted-link). Always null in events, which are stored and delivered (read the invoice for it); a stored Idempotency-Key result that shows it is kept sealed under the server's secrets key and replayed only to the very key that made the request (any other key, one rotated from it included, gets 422 idempotency_key_reused).",
      }),
    ),
    environment: Environment,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Invoice' },
);
export type Invoice = Static<typeof Invoice>;

/** Said by every write whose answer shows `hostedInvoiceUrl` (src/http/kept-results.ts). */
export const HOSTED_URL_REPLAY =
  'When the answer shows `hostedInvoiceUrl` (a capability URL), an Idempotency-Key replays it only to the very key that made the request; any other key, one rotated from it included, gets 422 idempotency_key_reused (read the invoice instead).';

export const DeletedInvoice = Type.Object(
  { id: Type.String(), object: Type.Literal('invoice'), deleted: Type.Literal(true) },
  { title: 'DeletedInvoice' },
);

export const InvoiceListQuery = Type.Object(
  {
    ...PageQuery,
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    status: Type.Optional(
      StringEnum(INVOICE_STATUSES, { description: `One of ${INVOICE_STATUSES.join(', ')}.` }),
    ),
  },
  { additionalProperties: false },
);

export const LineParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  lineId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const EinvoiceQuery = Type.Object(
  {
    format: Type.Optional(
      StringEnum(['ubl', 'cii'], {
        description: 'ubl (default): UBL 2.1, Peppol BIS Billing 3.0; cii: UN/CEFACT CII D16B.',
      }),
    ),
  },
  { additionalProperties: false },
);
