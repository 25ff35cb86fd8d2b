// The invoices subscriptions make: a draft with lines priced by the catalogue (their amounts
// computed by the subscription: tiers, packages, decimal unit amounts, proration), made or
// extended inside the subscription's own unit of work, so that the subscription's change and
// its invoice commit together or not at all. Priced, stored and announced as every draft is
// (lines.ts): the same rates, the customer's exemption, the same events.
import { checkedDate } from '../dates.ts';
import type { Queryable } from '../db/pool.ts';
import { computeTaxBreakdown, type TaxExempt } from '../taxes/breakdown.ts';
import type { TenantScope } from '../tenancy.ts';
import { ratesForInvoice } from './pricing.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { ParameterInvalidError } from '../errors.ts';
import { newId } from '../ids.ts';
import { isSafeAmount, MAX_AMOUNT } from '../money/amount.ts';
import { isCurrency } from '../money/currency.ts';
import { MAX_TAX_RATES } from './draft-schemas.ts';
import { exactLineAmount, quantityDefect } from './exact-quantity.ts';
import { appendLines, changeLinesIn, draftFields, insertNewDraft } from './lines.ts';
import {
  selectBilledLine,
  selectLines,
  updateLineQuantities,
  type LineRow,
} from './lines-store.ts';
import type { BillingReason, Invoice } from './schemas.ts';
import type { SharedReads } from './shared-reads.ts';
import type { DraftFields } from './store.ts';

/** A line as a subscription prices it. */
export interface PricedLine {
  description: string;
  /** Whole units, ≥ 0; with `quantityDecimal`, its ceiling. */
  quantity: number;
  /**
   * The exact quantity of a metered line when it is not whole ("12.5", up to 12 places), as its
   * shortest text; absent or null when `quantity` is exact. `lineQuantity` makes both fields.
   */
  quantityDecimal?: string | null;
  /**
   * Set only when amount = the exact quantity × unitAmount (per-unit prices whose product is
   * whole); null otherwise.
   */
  unitAmount: number | null;
  /** Minor units, rounded once by the price's scheme; negative on a proration credit. */
  amount: number;
  /** UN/ECE Recommendation 20. */
  unitCode: string;
  /** The product's rates; null: the invoice's defaults apply. */
  taxRates: string[] | null;
  /**
   * The period billed: the instants [start, end), and its first and last calendar day (end
   * inclusive) in the subscription's time zone, which documents print as they are.
   */
  period: { start: Date; end: Date; startDate: string; endDate: string };
  priceId: string;
  subscriptionItemId: string;
}

export interface SubscriptionDraft {
  /** The id the subscription's ledger holds for it; absent: a new one. */
  id?: string;
  customerId: string;
  currency: string;
  subscriptionId: string;
  billingReason: Exclude<BillingReason, 'manual'>;
  daysUntilDue: number | null;
  defaultTaxRates: string[];
  lines: PricedLine[];
  memo?: string | null;
}

/** A subscription's line as a row; a line that breaks a line's rules is a defect of its maker. */
function lineRow(line: PricedLine, position: number, index: number): Omit<LineRow, 'invoice_id'> {
  const { quantity, unitAmount, amount, period } = line;
  const exact = { quantity, quantityDecimal: line.quantityDecimal ?? null };
  const defect = (what: string) => new RangeError(`line ${index} (${line.priceId}): ${what}`);
  const quantityWrong = quantityDefect(exact);
  if (quantityWrong !== null) throw defect(quantityWrong);
  if (!Number.isSafeInteger(amount)) throw defect('amount is not whole');
  if (unitAmount !== null && exactLineAmount(exact, unitAmount) !== BigInt(amount)) {
    throw defect('amount is not quantity × unitAmount');
  }
  if (!isSafeAmount(BigInt(amount))) {
    throw new ParameterInvalidError(
      'items',
      `A line's amount exceeds the largest amount, ${MAX_AMOUNT} minor units.`,
    );
  }
  const startDate = checkedDate(period.startDate, 'period.startDate');
  const endDate = checkedDate(period.endDate, 'period.endDate');
  if (!(period.start < period.end) || startDate > endDate) throw defect('period runs backwards');
  if ((line.taxRates?.length ?? 0) > MAX_TAX_RATES) throw defect('too many tax rates');
  return {
    id: newId('il'),
    position,
    description: line.description,
    quantity,
    quantity_decimal: exact.quantityDecimal,
    unit_amount: unitAmount,
    amount,
    tax_rates: line.taxRates,
    unit_code: line.unitCode,
    price_id: line.priceId,
    subscription_item_id: line.subscriptionItemId,
    period_start: period.start.toISOString(),
    period_end: period.end.toISOString(),
    period_start_date: startDate,
    period_end_date: endDate,
  };
}

/**
 * The invoice period (EN 16931 BG-14) that holds `period` and every line's: from the first day
 * of the earliest to the last day of the latest. The documents print it as the service period
 * (rather than the issue date as the date of supply), and Peppol requires each line's period
 * to lie within it (PEPPOL-EN16931-R110, R111).
 */
function periodSpan(
  period: { start: string; end: string } | null,
  lines: readonly Pick<LineRow, 'period_start_date' | 'period_end_date'>[],
): { start: string; end: string } | null {
  let span = period;
  for (const { period_start_date: start, period_end_date: end } of lines) {
    if (start === null || end === null) continue;
    span = span
      ? { start: start < span.start ? start : span.start, end: end > span.end ? end : span.end }
      : { start, end };
  }
  return span;
}

function lineRows(lines: readonly PricedLine[], firstPosition: number) {
  return lines.map((line, i) => lineRow(line, firstPosition + i, i));
}

// The rates a subscription names were checked when it (or its product) took them: an invoice
// of a later period still carries them after they are deactivated, as issued invoices keep
// theirs, so none of them counts as newly used here.
const NONE_NEWLY_USED = { newlyUsed: new Set<string>(), param: 'lines' };

/**
 * Makes a draft invoice inside the caller's unit of work (same transaction as the
 * subscription's change), priced like any draft (rates, the customer's exemption, `reads` if
 * given), emitting invoice.created; returns the API shape. Lines that add up below 0 (in all,
 * or under one tax rate) are refused with 400 parameter_invalid (param `lines`).
 */
export function createSubscriptionDraft(
  uow: UnitOfWork,
  draft: SubscriptionDraft,
  now: Date,
  reads?: SharedReads,
): Promise<Invoice> {
  if (!isCurrency(draft.currency)) {
    throw new ParameterInvalidError('currency', `Unknown currency '${draft.currency}'.`);
  }
  const lines = lineRows(draft.lines, 1);
  const span = periodSpan(null, lines);
  const fields: DraftFields = {
    default_tax_rates: draft.defaultTaxRates,
    due_date: null,
    days_until_due: draft.daysUntilDue,
    memo: draft.memo ?? null,
    metadata: {},
    supply_date: null,
    service_period_start: span?.start ?? null,
    service_period_end: span?.end ?? null,
    buyer_reference: null,
    purchase_order: null,
  };
  const invoice = {
    id: draft.id,
    customer_id: draft.customerId,
    currency: draft.currency,
    subscription_id: draft.subscriptionId,
    billing_reason: draft.billingReason,
  };
  return insertNewDraft(uow, invoice, fields, lines, NONE_NEWLY_USED, now, reads);
}

/**
 * Adds priced lines after the last line of a draft (late usage, pending prorations) inside the
 * caller's unit of work, repricing it; invoice.updated. 404 for an unknown invoice, 409
 * state_invalid once it is issued.
 */
export function addSubscriptionLines(
  uow: UnitOfWork,
  invoiceId: string,
  lines: readonly PricedLine[],
  now: Date,
): Promise<Invoice> {
  return changeLinesIn(uow, invoiceId, now, async (tx, scope, row) => {
    let added: Omit<LineRow, 'invoice_id'>[] = [];
    const all = await appendLines(
      tx,
      scope,
      row,
      (position) => (added = lineRows(lines, position)),
    );
    // The invoice period grows with the lines, unless the draft was given a date of supply.
    const current =
      row.service_period_start === null
        ? null
        : { start: row.service_period_start, end: row.service_period_end! };
    const span = row.supply_date === null ? periodSpan(current, added) : current;
    const fields = {
      ...draftFields(row),
      service_period_start: span?.start ?? null,
      service_period_end: span?.end ?? null,
    };
    return { lines: all.lines, fields, ...NONE_NEWLY_USED };
  });
}

/**
 * Sets the measured quantity and amount of priced lines of a draft (usage that arrived during
 * its grace period) inside the caller's unit of work, repricing it; invoice.updated. 409
 * state_invalid once it is issued.
 */
export function refreshSubscriptionLines(
  uow: UnitOfWork,
  invoiceId: string,
  updates: readonly {
    lineId: string;
    quantity: number;
    quantityDecimal: string | null;
    amount: number;
  }[],
  now: Date,
): Promise<Invoice> {
  return changeLinesIn(uow, invoiceId, now, async (tx, scope, row) => {
    await updateLineQuantities(
      tx,
      scope,
      invoiceId,
      updates.map((u) => ({ ...u, id: u.lineId })),
    );
    const lines = await selectLines(tx, scope, [invoiceId]);
    return { lines, fields: draftFields(row), ...NONE_NEWLY_USED };
  });
}

/**
 * True when these lines cannot make an invoice: they add up below 0, in all or under one of the
 * rates they carry (a line without rates of its own carries `defaultTaxRates`). Such credits
 * belong on a credit note.
 */
export function linesBelowZero(
  lines: readonly Pick<PricedLine, 'amount' | 'taxRates'>[],
  defaultTaxRates: readonly string[],
): boolean {
  const sums = new Map<string, bigint>();
  let total = 0n;
  for (const line of lines) {
    total += BigInt(line.amount);
    for (const rate of line.taxRates ?? defaultTaxRates) {
      sums.set(rate, (sums.get(rate) ?? 0n) + BigInt(line.amount));
    }
  }
  return total < 0n || [...sums.values()].some((sum) => sum < 0n);
}

/**
 * What these lines would come to on an invoice of the subscription (a preview, written
 * nowhere): subtotal, tax and total as the invoice would price them, below 0 included (a
 * preview shows what a credit would be).
 */
export async function priceSubscriptionLines(
  db: Queryable,
  scope: TenantScope,
  taxExempt: TaxExempt,
  defaultTaxRates: readonly string[],
  lines: readonly PricedLine[],
): Promise<{ subtotal: number; tax: number; total: number }> {
  const taxable = lines.map((l) => ({ amount: l.amount, tax_rates: l.taxRates }));
  const rates = await ratesForInvoice(db, scope, defaultTaxRates, taxable, NONE_NEWLY_USED);
  const breakdown = computeTaxBreakdown(
    lines.map((l) => ({ amount: BigInt(l.amount), taxRateIds: l.taxRates ?? defaultTaxRates })),
    rates,
    taxExempt,
  );
  return {
    subtotal: Number(breakdown.subtotal),
    tax: Number(breakdown.tax),
    total: Number(breakdown.total),
  };
}

/**
 * The invoice line that billed a subscription's item at `at` (a later invoice first), with its
 * invoice's status: what a proration credit of that item is credited against.
 */
export function billedLine(
  db: Queryable,
  scope: TenantScope,
  subscriptionId: string,
  subscriptionItemId: string,
  at: Date,
) {
  return selectBilledLine(db, scope, subscriptionId, subscriptionItemId, at);
}
