// The receivables and tax reports (docs/api.md, "Reports"): what customers owed at the end of a day,
// aged; and the tax of the documents issued in a period, per rate — the data of a VAT return.
// Both are exact sums of integer minor units and add up to the documents they cover.
import { todayUtcOf, type Clock } from '../clock.ts';
import type { Queryable } from '../db/pool.ts';
import { ParameterInvalidError } from '../errors.ts';
import { checkedDate } from '../dates.ts';
import { toDecimalString } from '../money/format.ts';
import type { TenantScope } from '../tenancy.ts';
import { toCsv, type CsvColumn } from './csv.ts';
import {
  AGING_BUCKETS,
  type AgingBucket,
  type ReceivablesReport,
  type TaxReport,
} from './schemas.ts';
import { selectReceivables, selectTaxReport } from './store.ts';

/** A sum from SQL (numeric as text) as a JSON number: exact, or refused, never rounded. */
function amount(text: string): number {
  const value = BigInt(text);
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`report sum ${text} exceeds the amounts the API can show`);
  }
  return Number(value);
}

/**
 * What customers owed at the end of `asOf` (UTC; default today) on issued invoices that were
 * not void, as recorded by then: each invoice's total less the payments and credit notes
 * recorded by that time and not voided by it (receivedAt does not move a payment). So a report
 * of a day that is over never changes. Uncollectible invoices are still owed and included.
 */
export async function receivablesReport(
  db: Queryable,
  clock: Clock,
  scope: TenantScope,
  asOf: string | undefined,
): Promise<ReceivablesReport> {
  const day = asOf === undefined ? todayUtcOf(clock) : checkedDate(asOf, 'asOf');
  const rows = await selectReceivables(db, scope, day);
  const data = rows.map((r) => ({
    currency: r.currency,
    customerId: r.customer_id,
    customerName: r.customer_name,
    invoices: r.invoices,
    buckets: {
      current: amount(r.current),
      '1_30': amount(r.d1_30),
      '31_60': amount(r.d31_60),
      '61_90': amount(r.d61_90),
      over_90: amount(r.over_90),
    },
    total: amount(r.total),
  }));
  // Each currency's sums, in BigInt until they are shown.
  const sums = new Map<string, { invoices: number; buckets: Record<AgingBucket, bigint> }>();
  for (const line of data) {
    let sum = sums.get(line.currency);
    if (!sum) {
      const zero = Object.fromEntries(AGING_BUCKETS.map((b) => [b, 0n]));
      sums.set(
        line.currency,
        (sum = { invoices: 0, buckets: zero as Record<AgingBucket, bigint> }),
      );
    }
    sum.invoices += line.invoices;
    for (const bucket of AGING_BUCKETS) sum.buckets[bucket] += BigInt(line.buckets[bucket]);
  }
  const totals = [...sums].map(([currency, sum]) => {
    const buckets = Object.fromEntries(
      AGING_BUCKETS.map((b) => [b, amount(String(sum.buckets[b]))]),
    ) as Record<AgingBucket, number>;
    const total = AGING_BUCKETS.reduce((t, b) => t + sum.buckets[b], 0n);
    return { currency, invoices: sum.invoices, buckets, total: amount(String(total)) };
  });
  return { object: 'receivables_report', asOf: day, data, totals };
}

/**
 * The tax of the invoices issued from `from` to `to` (UTC days, both included) less that of the
 * credit notes issued then, per currency, country, category and rate, with each currency's
 * totals. Void documents are left out (with the credit notes of a void invoice).
 */
export async function taxReport(
  db: Queryable,
  scope: TenantScope,
  from: string,
  to: string,
): Promise<TaxReport> {
  checkedDate(from, 'from');
  checkedDate(to, 'to');
  if (to < from) throw new ParameterInvalidError('to', '`to` must not be before `from`.');
  const rows = await selectTaxReport(db, scope, from, to);
  const data = rows
    .filter((r) => r.kind === 'rate')
    .map((r) => ({
      currency: r.currency,
      country: r.country,
      category: r.category!,
      taxRateId: r.tax_rate_id!,
      displayName: r.display_name,
      percentage: r.percentage === null ? null : Number(r.percentage),
      invoices: r.invoices,
      creditNotes: r.credit_notes,
      taxableAmount: amount(r.taxable_amount),
      tax: amount(r.tax),
    }))
    .sort(
      (a, b) =>
        compare(a.currency, b.currency) ||
        compare(a.country ?? '~', b.country ?? '~') ||
        compare(a.category, b.category) ||
        (a.percentage ?? -1) - (b.percentage ?? -1) ||
        compare(a.taxRateId, b.taxRateId),
    );
  const totals = rows
    .filter((r) => r.kind === 'total')
    .map((r) => ({
      currency: r.currency,
      invoices: r.invoices,
      creditNotes: r.credit_notes,
      totalExcludingTax: amount(r.total_excluding_tax),
      tax: amount(r.tax),
      total: amount(r.total),
    }))
    .sort((a, b) => compare(a.currency, b.currency));
  return { object: 'tax_report', from, to, data, totals };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

type ReceivablesLine = ReceivablesReport['data'][number];
const money = (line: { currency: string }, value: number) => toDecimalString(value, line.currency);

const RECEIVABLES_COLUMNS: CsvColumn<ReceivablesLine>[] = [
  { header: 'currency', value: (l) => l.currency },
  { header: 'customerId', value: (l) => l.customerId },
  { header: 'customerName', value: (l) => l.customerName },
  { header: 'invoices', value: (l) => l.invoices, number: true },
  ...AGING_BUCKETS.map((bucket) => ({
    header: bucket,
    value: (l: ReceivablesLine) => money(l, l.buckets[bucket]),
    number: true,
  })),
  { header: 'total', value: (l) => money(l, l.total), number: true },
];

/** The receivables report's lines as CSV (totals are the spreadsheet's to add up). */
export function receivablesCsv(report: ReceivablesReport): string {
  return toCsv(report.data, RECEIVABLES_COLUMNS);
}

type TaxLine = TaxReport['data'][number];
const TAX_COLUMNS: CsvColumn<TaxLine>[] = [
  { header: 'currency', value: (l) => l.currency },
  { header: 'country', value: (l) => l.country },
  { header: 'category', value: (l) => l.category },
  { header: 'taxRateId', value: (l) => l.taxRateId },
  { header: 'displayName', value: (l) => l.displayName },
  { header: 'percentage', value: (l) => l.percentage, number: true },
  { header: 'invoices', value: (l) => l.invoices, number: true },
  { header: 'creditNotes', value: (l) => l.creditNotes, number: true },
  { header: 'taxableAmount', value: (l) => money(l, l.taxableAmount), number: true },
  { header: 'tax', value: (l) => money(l, l.tax), number: true },
];

/** The tax report's lines as CSV. */
export function taxCsv(report: TaxReport): string {
  return toCsv(report.data, TAX_COLUMNS);
}
