// Tenant settings: what documents print about the seller, how they are numbered, in which
// language, and when reminders go out. One set per tenant and environment.
import { Type, type Static } from '@sinclair/typebox';
import {
  Address,
  AddressOut,
  ElectronicAddressIn,
  ElectronicAddressOut,
  Locale as CustomerLocale,
  TimeZone,
} from '../customers/schemas.ts';
import { Environment, Nullable, Timestamp } from '../http/schemas.ts';

export const MAX_REMINDERS = 10;

export const ElectronicAddress = ElectronicAddressIn;
export type ElectronicAddress = Static<typeof ElectronicAddress>;

export const Locale = CustomerLocale;

const PaymentDetailsIn = Type.Object(
  {
    iban: Type.Optional(Nullable(Type.String({ minLength: 5, maxLength: 42 }))),
    bic: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[A-Za-z0-9]{8}([A-Za-z0-9]{3})?$',
          description: '8 or 11 characters.',
        }),
      ),
    ),
    accountName: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    instructions: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 1000 }))),
  },
  {
    additionalProperties: false,
    title: 'PaymentDetailsInput',
    description: 'Replaced whole by PATCH.',
  },
);

const EINVOICE_REQUIRED =
  'When true, issuing an invoice whose e-invoices (UBL and CII) cannot be made is refused with 409 einvoice_incomplete and changes nothing: no number is taken. A draft’s `einvoice` field shows beforehand whether it is ready and what is missing. Default false: such an invoice is issued, and its e-invoice requests answer 409 einvoice_incomplete.';

const TIME_ZONE =
  "The tenant's time zone (IANA name), default UTC: subscription periods follow its local calendar for customers without a time zone of their own. A subscription keeps the time zone its customer had when it was created.";
const INVOICE_GRACE =
  'Minutes an invoice made by a subscription stays a draft before it is issued (0–10080, a week; default 60): late usage and edits still change it meanwhile.';
export const MAX_INVOICE_GRACE_MINUTES = 10_080;

const Prefix = Type.String({
  pattern: '^[A-Za-z0-9/_.-]{1,20}$',
  description: '1–20 letters, digits, / _ . or -.',
});

export const SettingsUpdate = Type.Object(
  {
    legalName: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256 }))),
    address: Type.Optional(Nullable(Address)),
    taxId: Type.Optional(
      Nullable(
        Type.String({ minLength: 2, maxLength: 64, description: 'The VAT id, e.g. DE123456789.' }),
      ),
    ),
    companyRegistration: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'e.g. HRB 12345, Amtsgericht München.',
        }),
      ),
    ),
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 512 }))),
    phone: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 40 }))),
    paymentDetails: Type.Optional(PaymentDetailsIn),
    paymentTerms: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 500,
          description: 'Printed when an invoice has no due date.',
        }),
      ),
    ),
    invoicePrefix: Type.Optional(Prefix),
    creditNotePrefix: Type.Optional(Prefix),
    locale: Type.Optional(Locale),
    reminders: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 365 }), {
        maxItems: MAX_REMINDERS,
        uniqueItems: true,
        description:
          'Days after the due date on which an overdue invoice gets a reminder e-mail, e.g. [3, 14, 30].',
      }),
    ),
    electronicAddress: Type.Optional(Nullable(ElectronicAddress)),
    einvoiceRequired: Type.Optional(Type.Boolean({ description: EINVOICE_REQUIRED })),
    timeZone: Type.Optional(TimeZone),
    invoiceGraceMinutes: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_INVOICE_GRACE_MINUTES, description: INVOICE_GRACE }),
    ),
  },
  {
    additionalProperties: false,
    title: 'SettingsUpdate',
    examples: [
      {
        legalName: 'Beispiel Software GmbH',
        taxId: 'DE123456789',
        address: { line1: 'Marienplatz 1', city: 'München', postalCode: '80331', country: 'DE' },
        paymentDetails: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
        reminders: [3, 14, 30],
      },
    ],
  },
);
export type SettingsUpdate = Static<typeof SettingsUpdate>;

export const Settings = Type.Object(
  {
    id: Type.String({ description: 'The tenant (ten_…).' }),
    object: Type.Literal('settings'),
    environment: Environment,
    legalName: Nullable(Type.String()),
    address: Nullable(AddressOut),
    taxId: Nullable(Type.String()),
    companyRegistration: Nullable(Type.String()),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    paymentDetails: Type.Object(
      {
        iban: Nullable(Type.String()),
        bic: Nullable(Type.String()),
        accountName: Nullable(Type.String()),
        instructions: Nullable(Type.String()),
      },
      { title: 'PaymentDetails' },
    ),
    paymentTerms: Nullable(Type.String()),
    invoicePrefix: Type.String(),
    creditNotePrefix: Type.String(),
    locale: Type.String(),
    reminders: Type.Array(Type.Integer()),
    electronicAddress: Nullable(ElectronicAddressOut),
    einvoiceRequired: Type.Boolean({ description: EINVOICE_REQUIRED }),
    timeZone: Type.String({ description: TIME_ZONE }),
    invoiceGraceMinutes: Type.Integer({ description: INVOICE_GRACE }),
    updatedAt: Timestamp,
  },
  { title: 'Settings' },
);
export type Settings = Static<typeof Settings>;
