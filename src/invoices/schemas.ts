// Invoice schemas: the invoice as shown (lines, snapshots, e-mail status, e-invoice readiness)
// and the list's and routes' parameters. They validate requests, type the handlers and feed the
// OpenAPI document; the bodies that make and edit a draft are in draft-schemas.ts.
import { Type, type Static } from '@sinclair/typebox';
import { AddressOut, ElectronicAddressOut, TaxExempt, TaxId } from '../customers/schemas.ts';
import { Nullable, StringEnum, Timestamp } from '../http/schemas.ts';
import { ListQuery, ObjectId, StoredObject } from '../http/resource-schemas.ts';
import { Payment } from '../payments/schemas.ts';
import { TaxAmount } from '../taxes/schemas.ts';
import { INVOICE_STATUSES } from './state.ts';

export const LinePeriod = Type.Object(
  {
    start: Timestamp,
    end: Timestamp,
    startDate: Type.String({
      description:
        'The first day of the period (YYYY-MM-DD) in the time zone of the subscription, as the documents print it.',
    }),
    endDate: Type.String({
      description:
        'The last day of the period, inclusive (YYYY-MM-DD; the day before `end` in that time zone), as the documents print it.',
    }),
  },
  {
    title: 'LinePeriod',
    description:
      'The period the line bills: the instants [start, end), and the calendar days the PDF and e-invoices print (EN 16931 BG-26).',
  },
);

export const Line = Type.Object(
  {
    id: Type.String({ description: 'il_…' }),
    description: Type.String(),
    quantity: Type.Integer({
      description:
        'Whole units. On a line with `quantityDecimal`, that quantity rounded up to a whole number (0 only when nothing was used).',
    }),
    quantityDecimal: Nullable(
      Type.String({
        pattern: '^(0|[1-9][0-9]*)\\.[0-9]{0,11}[1-9]$',
        description:
          'The exact quantity of a metered line when it is not whole: a decimal with up to 12 places, written as short as it goes ("12.5", "0.000125"); `quantity` is then that quantity rounded up, and the PDF, the hosted page and the e-invoices print this one. null whenever `quantity` is exact (every line added through the API).',
        examples: ['12.5'],
      }),
    ),
    unitAmount: Nullable(
      Type.Integer({
        description:
          'Minor units. null only on a line made from a price whose amount follows the price’s billing scheme (tiered, package, decimal unit amounts, proration) rather than quantity × unitAmount.',
      }),
    ),
    amount: Type.Integer({
      description:
        'quantity × unitAmount (the exact quantity: `quantityDecimal` when set) whenever unitAmount is set; otherwise as the price computes it, rounded once. Negative on credit and discount lines.',
    }),
    taxRates: Nullable(Type.Array(Type.String())),
    unitCode: Type.String(),
    period: Nullable(LinePeriod),
    priceId: Nullable(Type.String({ description: 'The price it was made from (price_…).' })),
    subscriptionItemId: Nullable(
      Type.String({ description: 'The subscription item it bills (si_…).' }),
    ),
  },
  {
    title: 'Line',
    description:
      'A line of an invoice. Lines added through the API have no period, price or subscription item; those of subscription invoices have all three.',
  },
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

export const BILLING_REASONS = [
  'manual',
  'subscription_create',
  'subscription_cycle',
  'subscription_update',
  'subscription_cancel',
] as const;
export type BillingReason = (typeof BILLING_REASONS)[number];

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

export const Invoice = StoredObject('Invoice', 'invoice', 'inv_…', {
  customerId: Type.String(),
  subscriptionId: Nullable(
    Type.String({ description: 'The subscription that made the invoice (sub_…).' }),
  ),
  billingReason: StringEnum(BILLING_REASONS, {
    description:
      'Why the invoice was made: `manual` (through POST /v1/invoices), or by its subscription: `subscription_create` (its first period), `subscription_cycle` (a later period, a trial’s end included), `subscription_update` (a change invoiced at once), `subscription_cancel` (its last invoice).',
  }),
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
  supplyDate: Nullable(Type.String({ description: 'Date of supply; the issue date by default.' })),
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
});
export type Invoice = Static<typeof Invoice>;

/** Said by every write whose answer shows `hostedInvoiceUrl` (src/http/kept-results.ts). */
export const HOSTED_URL_REPLAY =
  'When the answer shows `hostedInvoiceUrl` (a capability URL), an Idempotency-Key replays it only to the very key that made the request; any other key, one rotated from it included, gets 422 idempotency_key_reused (read the invoice instead).';

export const DeletedInvoice = Type.Object(
  { id: Type.String(), object: Type.Literal('invoice'), deleted: Type.Literal(true) },
  { title: 'DeletedInvoice' },
);

export const InvoiceListQuery = ListQuery({
  customerId: Type.Optional(ObjectId()),
  subscriptionId: Type.Optional(ObjectId('Only the invoices this subscription made.')),
  status: Type.Optional(
    StringEnum(INVOICE_STATUSES, { description: `One of ${INVOICE_STATUSES.join(', ')}.` }),
  ),
});

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
