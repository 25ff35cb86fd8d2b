// Tax rate schemas: they validate requests, type the handlers and feed the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { CountryCode } from '../customers/schemas.ts';
import { VAT_CATEGORIES } from '../documents/model.ts';
import { Metadata, Nullable, StringEnum } from '../http/schemas.ts';
import { ActiveFilter, ListQuery, StoredObject } from '../http/resource-schemas.ts';

export const TAX_TYPES = ['vat', 'gst', 'sales_tax', 'other'] as const;
export const TaxType = StringEnum(TAX_TYPES, { description: 'vat, gst, sales_tax or other.' });

const Percentage = Type.Number({
  minimum: 0,
  exclusiveMaximum: 100,
  description:
    'Percent, 0 ≤ p < 100 with at most 4 decimal places (e.g. 8.875). Read exactly from its decimal text.',
  examples: [19, 8.875],
});

export const VatCategory = StringEnum(VAT_CATEGORIES, {
  description:
    'EN 16931 VAT category: S standard, Z zero-rated, E exempt, AE reverse charge, K intra-Community supply, G export outside the EU, O not subject to VAT, L Canary Islands IGIC, M Ceuta and Melilla IPSI. Default S. On an invoice to a reverse-charge customer, S becomes AE.',
});

/** The categories whose rates must say why no VAT is charged (exemptionReason). */
export const CATEGORIES_WITH_REASON = ['E', 'AE', 'K', 'G', 'O'] as const;

const fields = {
  displayName: Type.String({ minLength: 1, maxLength: 100, description: 'e.g. VAT' }),
  exemptionReason: Type.String({
    minLength: 1,
    maxLength: 500,
    description:
      'The legal text for an exempt or reverse-charge supply, printed on documents (BT-120), e.g. "Exempt under Art. 132 VAT Directive". Required for categories E, AE, K, G and O.',
  }),
  country: CountryCode,
  state: Type.String({ minLength: 1, maxLength: 100, description: 'e.g. NY' }),
  jurisdiction: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 1000 }),
  active: Type.Boolean({ description: 'false hides the rate from new use.' }),
  metadata: Metadata,
};

export const TaxRateCreate = Type.Object(
  {
    displayName: fields.displayName,
    percentage: Percentage,
    inclusive: Type.Boolean({ description: 'true: line amounts already include this tax.' }),
    taxType: Type.Optional(TaxType),
    category: Type.Optional(VatCategory),
    exemptionReason: Type.Optional(fields.exemptionReason),
    country: Type.Optional(fields.country),
    state: Type.Optional(fields.state),
    jurisdiction: Type.Optional(fields.jurisdiction),
    description: Type.Optional(fields.description),
    active: Type.Optional(fields.active),
    metadata: Type.Optional(fields.metadata),
  },
  {
    additionalProperties: false,
    title: 'TaxRateCreate',
    examples: [
      { displayName: 'VAT', percentage: 19, inclusive: false, taxType: 'vat', country: 'DE' },
    ],
  },
);
export type TaxRateCreate = Static<typeof TaxRateCreate>;

/**
 * `percentage`, `inclusive` and `taxType` never change (issued invoices refer to them): they
 * are accepted only with their current value, anything else is 400 parameter_invalid.
 */
export const TaxRateUpdate = Type.Object(
  {
    displayName: Type.Optional(fields.displayName),
    exemptionReason: Type.Optional(Nullable(fields.exemptionReason)),
    country: Type.Optional(Nullable(fields.country)),
    state: Type.Optional(Nullable(fields.state)),
    jurisdiction: Type.Optional(Nullable(fields.jurisdiction)),
    description: Type.Optional(Nullable(fields.description)),
    active: Type.Optional(fields.active),
    metadata: Type.Optional(Nullable(fields.metadata)),
    percentage: Type.Optional(Percentage),
    inclusive: Type.Optional(Type.Boolean()),
    taxType: Type.Optional(Nullable(TaxType)),
    category: Type.Optional(VatCategory),
  },
  {
    additionalProperties: false,
    title: 'TaxRateUpdate',
    examples: [{ description: 'German VAT, standard rate', active: true }],
  },
);
export type TaxRateUpdate = Static<typeof TaxRateUpdate>;

export const TaxRate = StoredObject('TaxRate', 'tax_rate', 'txr_…', {
  displayName: Type.String(),
  percentage: Type.Number(),
  inclusive: Type.Boolean(),
  taxType: Nullable(TaxType),
  category: VatCategory,
  exemptionReason: Nullable(Type.String()),
  country: Nullable(Type.String()),
  state: Nullable(Type.String()),
  jurisdiction: Nullable(Type.String()),
  description: Nullable(Type.String()),
  active: Type.Boolean(),
  metadata: Type.Record(Type.String(), Type.String()),
});
export type TaxRate = Static<typeof TaxRate>;

export const TaxRateListQuery = ListQuery({ active: ActiveFilter('rates') });

/** One line of an invoice's (or credit note's) tax breakdown. */
export const TaxAmount = Type.Object(
  {
    taxRateId: Type.String(),
    displayName: Type.String(),
    percentage: Type.Number(),
    inclusive: Type.Boolean(),
    category: VatCategory,
    exemptionReason: Nullable(Type.String()),
    taxableAmount: Type.Integer({ description: 'The amount taxed, excluding the tax.' }),
    amount: Type.Integer({ description: 'The tax, rounded once per rate.' }),
  },
  { title: 'TaxAmount' },
);
export type TaxAmount = Static<typeof TaxAmount>;
