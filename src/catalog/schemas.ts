// Product and price schemas: they validate requests, type the handlers and feed the OpenAPI
// document.
import { Type, type Static } from '@sinclair/typebox';
import { Metadata, Nullable, StringEnum } from '../http/schemas.ts';
import { ActiveFilter, ListQuery, ObjectId, StoredObject } from '../http/resource-schemas.ts';
import { Currency, TaxRateIds, UnitCode } from '../invoices/draft-schemas.ts';
import { MAX_AMOUNT } from '../money/amount.ts';

/** Tiers a tiered price may have. */
export const MAX_TIERS = 50;

const productFields = {
  name: Type.String({ minLength: 1, maxLength: 250, examples: ['Analytics, Pro plan'] }),
  description: Type.String({ maxLength: 1000 }),
  unitCode: UnitCode,
  taxRates: TaxRateIds,
  active: Type.Boolean({
    description: 'false: retired; it stays readable, and what refers to it keeps it.',
  }),
  metadata: Metadata,
};

export const ProductCreate = Type.Object(
  {
    name: productFields.name,
    description: Type.Optional(productFields.description),
    unitCode: Type.Optional(productFields.unitCode),
    taxRates: Type.Optional(productFields.taxRates),
    active: Type.Optional(productFields.active),
    metadata: Type.Optional(productFields.metadata),
  },
  {
    additionalProperties: false,
    title: 'ProductCreate',
    examples: [{ name: 'Analytics, Pro plan', unitCode: 'C62', taxRates: ['txr_2xYq4mV9sLk3'] }],
  },
);
export type ProductCreate = Static<typeof ProductCreate>;

/** PATCH changes only the fields it names; null clears the description or the metadata. */
export const ProductUpdate = Type.Object(
  {
    name: Type.Optional(productFields.name),
    description: Type.Optional(Nullable(productFields.description)),
    unitCode: Type.Optional(productFields.unitCode),
    taxRates: Type.Optional(productFields.taxRates),
    active: Type.Optional(productFields.active),
    metadata: Type.Optional(Nullable(productFields.metadata)),
  },
  { additionalProperties: false, title: 'ProductUpdate', examples: [{ active: false }] },
);
export type ProductUpdate = Static<typeof ProductUpdate>;

export const Product = StoredObject('Product', 'product', 'prod_…', {
  name: Type.String(),
  description: Nullable(Type.String()),
  unitCode: Type.String({ description: 'UN/ECE Recommendation 20.' }),
  taxRates: Type.Array(Type.String(), { description: 'Tax rate ids applied to its lines.' }),
  active: Type.Boolean(),
  metadata: Type.Record(Type.String(), Type.String()),
});
export type Product = Static<typeof Product>;

export const ProductListQuery = ListQuery({ active: ActiveFilter('products') });

const PRICE_TYPES = ['one_time', 'recurring'] as const;
const INTERVALS = ['day', 'week', 'month', 'year'] as const;
const USAGES = ['licensed', 'metered'] as const;
const BILLING_SCHEMES = ['per_unit', 'tiered', 'package'] as const;
const TIERS_MODES = ['graduated', 'volume'] as const;

const PriceType = StringEnum(PRICE_TYPES, { description: 'one_time or recurring.' });
const Interval = StringEnum(INTERVALS, { description: 'day, week, month or year.' });
const Usage = StringEnum(USAGES, {
  description: 'licensed: billed in advance for a quantity; metered: billed in arrears for usage.',
});
const BillingScheme = StringEnum(BILLING_SCHEMES, {
  description: 'per_unit (the default), tiered or package.',
});
const TiersMode = StringEnum(TIERS_MODES, {
  description:
    'graduated: each unit at the price of the tier it falls in; volume: all units at the price of the tier the total falls in.',
});

const UnitAmount = Type.Integer({
  minimum: 0,
  maximum: MAX_AMOUNT,
  description: 'Whole minor units per unit (or per package).',
  examples: [1500],
});
const UnitAmountDecimal = Type.String({
  maxLength: 40,
  pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,12})?$',
  description:
    'A decimal string of minor units, at least 0 and with up to 12 decimal places (e.g. "0.025": a fortieth of a cent).',
  examples: ['0.025'],
});
const FlatAmount = Type.Integer({
  minimum: 0,
  maximum: MAX_AMOUNT,
  description: 'Whole minor units added once when the tier is reached; default 0.',
});
const UpTo = Type.Integer({
  minimum: 1,
  maximum: MAX_AMOUNT,
  description: 'The last unit of the tier, included; null for the last tier.',
});

const RecurringCreate = Type.Object(
  {
    interval: Interval,
    intervalCount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 365,
        description:
          'Intervals per period, default 1; a period is at most a year: 365 days, 52 weeks, 12 months or 1 year.',
      }),
    ),
    usage: Type.Optional(Usage),
    meterId: Type.Optional(ObjectId('mtr_…: the meter of a metered price.')),
  },
  { additionalProperties: false, title: 'RecurringCreate' },
);

const TierCreate = Type.Object(
  {
    upTo: Nullable(UpTo),
    unitAmount: Type.Optional(UnitAmount),
    unitAmountDecimal: Type.Optional(UnitAmountDecimal),
    flatAmount: Type.Optional(FlatAmount),
  },
  {
    additionalProperties: false,
    title: 'PriceTierCreate',
    description:
      'At most one of unitAmount and unitAmountDecimal; a tier with neither has only its flatAmount.',
  },
);

export const PriceCreate = Type.Object(
  {
    productId: ObjectId('prod_…'),
    currency: Currency,
    type: PriceType,
    recurring: Type.Optional(RecurringCreate),
    billingScheme: Type.Optional(BillingScheme),
    unitAmount: Type.Optional(UnitAmount),
    unitAmountDecimal: Type.Optional(UnitAmountDecimal),
    packageSize: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'Units per package.' }),
    ),
    tiersMode: Type.Optional(TiersMode),
    tiers: Type.Optional(Type.Array(TierCreate, { minItems: 1, maxItems: MAX_TIERS })),
    nickname: Type.Optional(Type.String({ minLength: 1, maxLength: 250 })),
    active: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    title: 'PriceCreate',
    description:
      '`recurring` for recurring prices only. `per_unit` and `package` take exactly one of `unitAmount` and `unitAmountDecimal` (`package` with `packageSize`); `tiered` takes `tiersMode` and `tiers` instead.',
    examples: [
      {
        productId: 'prod_2xYq4mV9sLk3',
        currency: 'eur',
        type: 'recurring',
        recurring: { interval: 'month' },
        unitAmount: 1500,
      },
    ],
  },
);
export type PriceCreate = Static<typeof PriceCreate>;

/** Only these change: a price's terms and amounts never do (a new amount is a new price). */
export const PriceUpdate = Type.Object(
  {
    active: Type.Optional(Type.Boolean()),
    nickname: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 250 }))),
    metadata: Type.Optional(Nullable(Metadata)),
  },
  { additionalProperties: false, title: 'PriceUpdate', examples: [{ active: false }] },
);
export type PriceUpdate = Static<typeof PriceUpdate>;

export const Recurring = Type.Object(
  {
    interval: Interval,
    intervalCount: Type.Integer(),
    usage: Usage,
    meterId: Nullable(Type.String({ description: 'mtr_…; null for licensed prices.' })),
  },
  { title: 'Recurring' },
);

export const PriceTier = Type.Object(
  {
    upTo: Nullable(Type.Integer()),
    unitAmount: Nullable(Type.Integer()),
    unitAmountDecimal: Nullable(Type.String()),
    flatAmount: Type.Integer(),
  },
  { title: 'PriceTier' },
);
export type PriceTier = Static<typeof PriceTier>;

export const Price = StoredObject('Price', 'price', 'price_…', {
  productId: Type.String(),
  currency: Type.String(),
  type: PriceType,
  recurring: Nullable(Recurring),
  billingScheme: BillingScheme,
  unitAmount: Nullable(Type.Integer()),
  unitAmountDecimal: Nullable(
    Type.String({ description: 'As given at creation, without trailing zeros.' }),
  ),
  packageSize: Nullable(Type.Integer()),
  tiersMode: Nullable(TiersMode),
  tiers: Nullable(Type.Array(PriceTier)),
  nickname: Nullable(Type.String()),
  active: Type.Boolean(),
  metadata: Type.Record(Type.String(), Type.String()),
});
export type Price = Static<typeof Price>;

/** What a line's amount depends on (./amount.ts). */
export type PriceTerms = Pick<
  Price,
  'billingScheme' | 'unitAmount' | 'unitAmountDecimal' | 'packageSize' | 'tiersMode' | 'tiers'
>;

export const PriceListQuery = ListQuery({
  productId: Type.Optional(ObjectId('Only the prices of this product (prod_…).')),
  active: ActiveFilter('prices'),
});
