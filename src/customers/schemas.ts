// Customer schemas: they validate requests, type the handlers and feed the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { ELECTRONIC_ADDRESS_SCHEMES } from '../documents/einvoice/codes.ts';
import { LOCALES } from '../documents/model.ts';
import { Metadata, Nullable, StringEnum } from '../http/schemas.ts';
import { ListQuery, StoredObject } from '../http/resource-schemas.ts';

export const TAX_ID_TYPES = [
  'eu_vat',
  'gb_vat',
  'us_ein',
  'au_abn',
  'ch_vat',
  'no_vat',
  'ca_bn',
  'in_gst',
] as const;

export const CountryCode = Type.String({
  pattern: '^[A-Z]{2}$',
  description: 'ISO 3166-1 alpha-2 country code, upper case (e.g. DE).',
  examples: ['DE'],
});

export const Address = Type.Object(
  {
    line1: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    line2: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    city: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    state: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    postalCode: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
    country: Type.Optional(Nullable(CountryCode)),
  },
  { additionalProperties: false, title: 'AddressInput' },
);

export const TaxIdType = StringEnum(TAX_ID_TYPES, {
  description: 'eu_vat, gb_vat, us_ein, au_abn, ch_vat, no_vat, ca_bn or in_gst.',
});

export const TaxId = Type.Object(
  {
    type: TaxIdType,
    value: Type.String({ minLength: 1, maxLength: 64, examples: ['DE123456789'] }),
  },
  { additionalProperties: false, title: 'TaxId' },
);
export type TaxIdValue = Static<typeof TaxId>;

export const TaxExempt = StringEnum(['none', 'exempt', 'reverse'], {
  description: '`exempt` and `reverse` (reverse charge) customers pay no exclusive tax.',
});

// Defined here rather than imported from settings/: settings builds on customers' schemas.
// The enum types the scheme in the OpenAPI document and the client; the pattern keeps the
// refusal's message (the description) for anything not of its form.
export const ElectronicAddressScheme = StringEnum(ELECTRONIC_ADDRESS_SCHEMES, {
  pattern: '^([0-9]{4}|EM)$',
  title: 'ElectronicAddressScheme',
  description:
    'A Peppol EAS code (e.g. 0088 GLN, 9930 German VAT number, 0208 Belgian enterprise number), or EM for an e-mail address (CII only: Peppol does not route EM).',
});

/**
 * A language tag whose language has a catalogue. Its regional forms (de-AT) are accepted, so it
 * cannot be an enum here: the client's type generator types `Locale` from the same LOCALES.
 */
export const Locale = Type.String({
  minLength: 2,
  maxLength: 35,
  title: 'Locale',
  description: `A BCP 47 language tag whose language has a catalogue: ${LOCALES.join(', ')} (e.g. de, de-AT, pl). A customer without one gets the tenant's.`,
  examples: ['de'],
});

/** An IANA time zone name; checked against the platform's time zone database by the service. */
export const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  title: 'TimeZone',
  description:
    'An IANA time zone name (e.g. Europe/Berlin, America/New_York, UTC), stored in its canonical form (US/Pacific becomes America/Los_Angeles); anything else is 400 parameter_invalid. Subscription periods follow its local calendar.',
  examples: ['Europe/Berlin'],
});

export const ElectronicAddressIn = Type.Object(
  {
    scheme: ElectronicAddressScheme,
    value: Type.String({ minLength: 1, maxLength: 200 }),
  },
  {
    additionalProperties: false,
    title: 'ElectronicAddress',
    description:
      'Where e-invoices reach the party (EN 16931 BT-34 / BT-49). Default: derived from the party’s VAT id (the seller’s taxId; a customer’s eu_vat, else gb_vat, ch_vat or no_vat) where Peppol has a scheme for that country’s VAT numbers (e.g. 9930 for DE, 9932 for GB), else EM with the e-mail address.',
  },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 256 }),
  // The language of the customer's documents and e-mails.
  locale: Locale,
  buyerReference: Type.String({
    minLength: 1,
    maxLength: 200,
    description: "The buyer's reference put on its invoices (BT-10), e.g. a Leitweg-ID.",
  }),
  electronicAddress: ElectronicAddressIn,
  timeZone: TimeZone,
  email: Type.String({ format: 'email', maxLength: 512, examples: ['billing@example.com'] }),
  phone: Type.String({ minLength: 1, maxLength: 40 }),
  address: Address,
  description: Type.String({ maxLength: 1000 }),
  metadata: Metadata,
  taxIds: Type.Array(TaxId, { maxItems: 5 }),
};

export const CustomerCreate = Type.Object(
  {
    name: Type.Optional(fields.name),
    email: Type.Optional(fields.email),
    phone: Type.Optional(fields.phone),
    address: Type.Optional(fields.address),
    description: Type.Optional(fields.description),
    metadata: Type.Optional(fields.metadata),
    taxIds: Type.Optional(fields.taxIds),
    taxExempt: Type.Optional(TaxExempt),
    locale: Type.Optional(fields.locale),
    buyerReference: Type.Optional(fields.buyerReference),
    electronicAddress: Type.Optional(fields.electronicAddress),
    timeZone: Type.Optional(fields.timeZone),
    testClockId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'A test clock (test keys only): the customer, its subscriptions and their invoices live on the clock’s time.',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'CustomerCreate',
    examples: [
      {
        name: 'Müller Maschinenbau GmbH',
        email: 'billing@example.com',
        address: { line1: 'Hauptstraße 5', city: 'München', postalCode: '80331', country: 'DE' },
        taxIds: [{ type: 'eu_vat', value: 'DE123456789' }],
        locale: 'de',
      },
    ],
  },
);
export type CustomerCreate = Static<typeof CustomerCreate>;

/** PATCH changes only the fields it names; null clears an optional field. */
export const CustomerUpdate = Type.Object(
  {
    name: Type.Optional(Nullable(fields.name)),
    email: Type.Optional(Nullable(fields.email)),
    phone: Type.Optional(Nullable(fields.phone)),
    address: Type.Optional(Nullable(fields.address)),
    description: Type.Optional(Nullable(fields.description)),
    metadata: Type.Optional(Nullable(fields.metadata)),
    taxIds: Type.Optional(Nullable(fields.taxIds)),
    taxExempt: Type.Optional(TaxExempt),
    locale: Type.Optional(Nullable(fields.locale)),
    buyerReference: Type.Optional(Nullable(fields.buyerReference)),
    electronicAddress: Type.Optional(Nullable(fields.electronicAddress)),
    timeZone: Type.Optional(Nullable(fields.timeZone)),
  },
  {
    additionalProperties: false,
    title: 'CustomerUpdate',
    examples: [{ email: 'accounts@example.com', phone: null }],
  },
);
export type CustomerUpdate = Static<typeof CustomerUpdate>;

export const AddressOut = Type.Object(
  {
    line1: Nullable(Type.String()),
    line2: Nullable(Type.String()),
    city: Nullable(Type.String()),
    state: Nullable(Type.String()),
    postalCode: Nullable(Type.String()),
    country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2.' })),
  },
  { title: 'Address' },
);
export type Address = Static<typeof AddressOut>;

/** An electronic address as the API returns it. */
export const ElectronicAddressOut = Type.Object(
  { scheme: ElectronicAddressScheme, value: Type.String() },
  { title: 'ElectronicAddressValue' },
);
export type AddressOut = Static<typeof AddressOut>;

export const Customer = StoredObject('Customer', 'customer', 'cus_…', {
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  address: Nullable(AddressOut),
  description: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  taxIds: Type.Array(TaxId),
  taxExempt: TaxExempt,
  locale: Nullable(Type.String()),
  buyerReference: Nullable(Type.String()),
  electronicAddress: Nullable(ElectronicAddressOut),
  timeZone: Nullable(
    Type.String({
      description:
        "The customer's own time zone (IANA name); null: the tenant's (settings `timeZone`). A subscription keeps the one its customer had when it was created.",
    }),
  ),
  testClockId: Nullable(Type.String({ description: 'The test clock it lives on, or null.' })),
});
export type Customer = Static<typeof Customer>;

export const CustomerListQuery = ListQuery({
  email: Type.Optional(
    Type.String({ minLength: 1, maxLength: 512, description: 'Exact e-mail, any case.' }),
  ),
});
