// Tax rate schemas: they validate requests, type the handlers and feed the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { CountryCode } from '../customers/schemas.ts';
import { Environment, Metadata, Nullable, PageQuery, Timestamp } from '../http/schemas.ts';

export const TAX_TYPES = ['vat', 'gst', 'sales_tax', 'other'] as const;
export const TaxType = Type.Union(
  TAX_TYPES.map((t) => Type.Literal(t)),
  { description: 'vat, gst, sales_tax or other.' },
);

const Percentage = Type.Number({
  minimum: 0,
  exclusiveMaximum: 100,
  description:
    'Percent, 0 ≤ p < 100 with at most 4 decimal places (e.g. 8.875). Read exactly from its decimal text.',
  examples: [19, 8.875],
});

const fields = {
  displayName: Type.String({ minLength: 1, maxLength: 100, description: 'e.g. VAT' }),
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
    country: Type.Optional(fields.country),
    state: Type.Optional(fields.state),
    jurisdiction: Type.Optional(fields.jurisdiction),
    description: Type.Optional(fields.description),
    active: Type.Optional(fields.active),
    metadata: Type.Optional(fields.metadata),
  },
  { additionalProperties: false },
);
export type TaxRateCreate = Static<typeof TaxRateCreate>;

/**
 * `percentage`, `inclusive` and `taxType` never change (issued invoices refer to them): they
 * are accepted only with their current value, anything else is 400 parameter_invalid.
 */
export const TaxRateUpdate = Type.Object(
  {
    displayName: Type.Optional(fields.displayName),
    country: Type.Optional(Nullable(fields.country)),
    state: Type.Optional(Nullable(fields.state)),
    jurisdiction: Type.Optional(Nullable(fields.jurisdiction)),
    description: Type.Optional(Nullable(fields.description)),
    active: Type.Optional(fields.active),
    metadata: Type.Optional(Nullable(fields.metadata)),
    percentage: Type.Optional(Percentage),
    inclusive: Type.Optional(Type.Boolean()),
    taxType: Type.Optional(Nullable(TaxType)),
  },
  { additionalProperties: false },
);
export type TaxRateUpdate = Static<typeof TaxRateUpdate>;

export const TaxRate = Type.Object(
  {
    id: Type.String({ description: 'txr_…' }),
    object: Type.Literal('tax_rate'),
    displayName: Type.String(),
    percentage: Type.Number(),
    inclusive: Type.Boolean(),
    taxType: Nullable(TaxType),
    country: Nullable(Type.String()),
    state: Nullable(Type.String()),
    jurisdiction: Nullable(Type.String()),
    description: Nullable(Type.String()),
    active: Type.Boolean(),
    metadata: Type.Record(Type.String(), Type.String()),
    environment: Environment,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'TaxRate' },
);
export type TaxRate = Static<typeof TaxRate>;

export const TaxRateListQuery = Type.Object(
  {
    ...PageQuery,
    active: Type.Optional(
      Type.String({
        pattern: '^(true|false)$',
        description: 'true or false: only active or only inactive rates.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** One line of an invoice's (or credit note's) tax breakdown. */
export const TaxAmount = Type.Object({
  taxRateId: Type.String(),
  displayName: Type.String(),
  percentage: Type.Number(),
  inclusive: Type.Boolean(),
  taxableAmount: Type.Integer({ description: 'The amount taxed, excluding the tax.' }),
  amount: Type.Integer({ description: 'The tax, rounded once per rate.' }),
});
export type TaxAmount = Static<typeof TaxAmount>;
