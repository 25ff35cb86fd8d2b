// Report schemas: they validate the query strings, type the handlers and feed the OpenAPI
// document. Amounts are integers in the currency's minor unit (in CSV: decimal major units).
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../http/schemas.ts';

const DateOnly = (description: string) =>
  Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description, examples: ['2026-11-30'] });

const Format = Type.Optional(
  StringEnum(['json', 'csv'], {
    description:
      '`json` (default) or `csv`: text/csv with a header row, amounts in major units (e.g. 1234.50; jpy 1234; kwd 1.234), UTF-8 with a byte order mark so spreadsheets read it as such.',
  }),
);

export const ReceivablesQuery = Type.Object(
  {
    asOf: Type.Optional(DateOnly('The day (UTC) whose end the report describes; default today.')),
    format: Format,
  },
  { additionalProperties: false },
);

export const AGING_BUCKETS = ['current', '1_30', '31_60', '61_90', 'over_90'] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];

const Buckets = Type.Object(
  {
    current: Type.Integer({ description: 'Not yet due on asOf (or no due date).' }),
    '1_30': Type.Integer({ description: '1 to 30 days past due.' }),
    '31_60': Type.Integer(),
    '61_90': Type.Integer(),
    over_90: Type.Integer({ description: 'More than 90 days past due.' }),
  },
  { title: 'AgingBuckets', description: 'What was owed, by days past the due date on asOf.' },
);

const ReceivablesLine = Type.Object(
  {
    currency: Type.String(),
    customerId: Type.String(),
    customerName: Nullable(Type.String({ description: 'The customer’s name as it is now.' })),
    invoices: Type.Integer({ description: 'The invoices that owed something.' }),
    buckets: Buckets,
    total: Type.Integer({ description: 'Σ buckets.' }),
  },
  { title: 'ReceivablesLine' },
);

export const ReceivablesReport = Type.Object(
  {
    object: Type.Literal('receivables_report'),
    asOf: Type.String(),
    data: Type.Array(ReceivablesLine, {
      description: 'One line per currency and customer that owed something, by currency.',
    }),
    totals: Type.Array(
      Type.Object({
        currency: Type.String(),
        invoices: Type.Integer(),
        buckets: Buckets,
        total: Type.Integer(),
      }),
      { description: 'One per currency: the sums of its lines.' },
    ),
  },
  { title: 'ReceivablesReport' },
);
export type ReceivablesReport = Static<typeof ReceivablesReport>;

export const TaxReportQuery = Type.Object(
  {
    from: DateOnly('The first day (UTC) of the period.'),
    to: DateOnly('The last day (UTC) of the period, included; not before `from`.'),
    format: Format,
  },
  { additionalProperties: false },
);

const TaxLine = Type.Object(
  {
    currency: Type.String(),
    country: Nullable(Type.String({ description: 'The tax rate’s country.' })),
    category: Type.String({
      description:
        'EN 16931 VAT category: AE for reverse-charge customers, E for exempt ones, else the rate’s (S by default).',
    }),
    taxRateId: Type.String(),
    displayName: Nullable(Type.String()),
    percentage: Nullable(Type.Number()),
    invoices: Type.Integer({ description: 'Invoices of the period that carry the rate.' }),
    creditNotes: Type.Integer({ description: 'Credit notes of the period that carry the rate.' }),
    taxableAmount: Type.Integer({
      description: 'Σ taxable amounts (excluding tax) of the invoices less the credit notes.',
    }),
    tax: Type.Integer({ description: 'Σ tax of the invoices less the credit notes.' }),
  },
  { title: 'TaxReportLine' },
);

export const TaxReport = Type.Object(
  {
    object: Type.Literal('tax_report'),
    from: Type.String(),
    to: Type.String(),
    data: Type.Array(TaxLine, {
      description: 'One line per currency, country, category and tax rate.',
    }),
    totals: Type.Array(
      Type.Object({
        currency: Type.String(),
        invoices: Type.Integer(),
        creditNotes: Type.Integer(),
        totalExcludingTax: Type.Integer({
          description: 'Net sales, taxed or not: invoices less credit notes.',
        }),
        tax: Type.Integer({ description: 'Σ of the lines’ tax in this currency.' }),
        total: Type.Integer({ description: 'totalExcludingTax + tax.' }),
      }),
      { description: 'One per currency: the documents of the period in all.' },
    ),
  },
  { title: 'TaxReport' },
);
export type TaxReport = Static<typeof TaxReport>;
