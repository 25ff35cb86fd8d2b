// A subscription's invoices: the lines of a period (licensed items in advance, pending
// prorations) made into an invoice exactly once per (subscription, period, reason), in the
// transaction that moves the subscription. Shared by creation, changes and the run.
import { getPricesWithProducts } from '../catalog/service.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import type { IssuedDocuments } from '../documents/service.ts';
import { resolveLocale } from '../documents/i18n.ts';
import type { DocumentLocale } from '../documents/model.ts';
import { getCustomerRow } from '../customers/service.ts';
import { getSettingsRow } from '../settings/service.ts';
import { priceItems, type BatchReads } from './batch-reads.ts';
import { creditInstead } from './credits.ts';
import type { AggregateUsage, PendingUsage } from './usage-lines.ts';
import type { Queryable } from '../db/pool.ts';
import { createSubscriptionDraft, linesBelowZero } from '../invoices/service.ts';
import { newId } from '../ids.ts';
import type { TenantScope } from '../tenancy.ts';
import type { Period } from './calendar.ts';
import {
  fullAmount,
  invoiceLine,
  isLicensed,
  periodLine,
  type PricedItem,
  type ProposedLine,
} from './lines.ts';
import { periodFrom } from './model.ts';
import type { BillingReason } from './schemas.ts';
import { claimLedger, deletePendingLines, selectPendingLines } from './ledger-store.ts';
import { selectItems, type SubscriptionRow } from './store.ts';

/** What billing needs beyond the database: numbers for credit notes, and usage measured. */
export interface Billing {
  documents: IssuedDocuments;
  aggregate: AggregateUsage;
}

/** What every step of a subscription is given: its time, and what it needs to bill. */
export interface StepOptions extends Billing {
  /** The time of the step (the clock's, or the test clock's). */
  now: Date;
  /** The tenant's invoiceGraceMinutes: how long an invoice stays a draft. */
  graceMinutes: number;
  /** What the run's batch read once for all its subscriptions; absent: each step reads. */
  reads?: BatchReads;
}

/** The options of a step at `now`, with the tenant's grace period. */
export async function stepOptions(
  db: Queryable,
  scope: TenantScope,
  now: Date,
  billing: Billing,
): Promise<StepOptions> {
  const settings = await getSettingsRow(db, scope);
  return { ...billing, now, graceMinutes: settings.invoice_grace_minutes };
}

/** The language of the lines a subscription writes: its customer's, else the tenant's. */
export async function lineLocale(
  db: Queryable,
  scope: TenantScope,
  row: Pick<SubscriptionRow, 'customer_id'>,
  reads?: BatchReads,
): Promise<DocumentLocale> {
  const [customer, settings] = await Promise.all([
    reads?.invoices.customers.get(row.customer_id) ?? getCustomerRow(db, scope, row.customer_id),
    reads?.invoices.settings.settings ?? getSettingsRow(db, scope),
  ]);
  return resolveLocale(customer.locale, resolveLocale(settings.locale));
}

/** The subscription's items with their prices and products. */
export async function pricedItems(
  db: Queryable,
  scope: TenantScope,
  subscriptionId: string,
  reads?: BatchReads,
): Promise<PricedItem[]> {
  const known = reads?.items(subscriptionId);
  if (known) return known;
  const items = await selectItems(db, scope, [subscriptionId]);
  const prices = await getPricesWithProducts(
    db,
    scope,
    items.map((i) => i.price_id),
  );
  return priceItems(items, prices);
}

/** What waits for the subscription's next invoice: proration lines, and spans of usage. */
export interface Pending {
  /** The rows of the proration lines, in the order of `lines`. */
  ids: string[];
  lines: ProposedLine[];
  /** The rows of the usage spans, which the invoice that measures them removes. */
  usageIds: string[];
  usage: PendingUsage[];
}

/** The pending proration lines and usage spans. */
export async function pendingLines(
  db: Queryable,
  scope: TenantScope,
  row: SubscriptionRow,
  items: readonly PricedItem[],
  reads?: BatchReads,
): Promise<Pending> {
  const rows = reads?.pending(row.id) ?? (await selectPendingLines(db, scope, [row.id]));
  const byPrice = new Map(items.map((i) => [i.catalog.price.id, i.catalog]));
  const known = (priceId: string) => byPrice.get(priceId) ?? reads?.price(priceId);
  const missing = rows.map((p) => p.price_id).filter((id) => !known(id));
  const removed = await getPricesWithProducts(db, scope, missing);
  const catalogOf = (priceId: string) => known(priceId) ?? removed.get(priceId)!;
  const pending = rows.filter((p) => p.kind === 'proration');
  const usage = rows.filter((p) => p.kind === 'usage');
  return {
    usageIds: usage.map((p) => p.id),
    usage: usage.map((p) => ({
      itemId: p.subscription_item_id,
      catalog: catalogOf(p.price_id),
      period: { start: p.period_start, end: p.period_end },
    })),
    ids: pending.map((p) => p.id),
    lines: pending.map((p) => {
      const { product } = catalogOf(p.price_id);
      return {
        description: p.description,
        quantity: p.quantity,
        unitAmount: null,
        amount: p.amount,
        unitCode: product.unitCode,
        taxRates: product.taxRates.length > 0 ? product.taxRates : null,
        period: { start: p.period_start, end: p.period_end },
        priceId: p.price_id,
        subscriptionItemId: p.subscription_item_id,
        proration: true,
      };
    }),
  };
}

/**
 * The lines of the period starting at `start`: each licensed item in advance (a stub prorated
 * as the subscription's first-period rule says), with what each item is now billed at.
 */
export function linesOfPeriod(
  row: SubscriptionRow,
  items: readonly PricedItem[],
  start: Date,
): { period: Period; lines: ProposedLine[]; billed: Map<string, number> } {
  const { period, basis } = periodFrom(row, start);
  const lines: ProposedLine[] = [];
  const billed = new Map<string, number>();
  for (const item of items) {
    if (!isLicensed(item.catalog)) continue;
    const line = periodLine(item, period, basis, row.proration_behavior);
    if (line !== null) lines.push(line);
    // What the item is billed at for the period, as a whole period's amount: the base of a
    // later proration credit (a prorated stub stands for the whole period it is part of).
    billed.set(item.id, line === null ? 0 : fullAmount(item.catalog, item.quantity));
  }
  return { period, lines, billed };
}

export interface InvoiceMade {
  /** The invoice's id; null when none was made (no lines, or made before). */
  invoiceId: string | null;
  /** False when (subscription, period, reason) had its invoice already. */
  claimed: boolean;
}

/**
 * Makes the invoice of (subscription, period, reason) from the `fresh` lines and the pending
 * ones (which it then carries), once: a second call for the same key makes nothing. No
 * invoice is made without lines, and none with a total below zero (EN 16931 keeps credits in
 * credit notes): its fresh lines join the pending ones for the next invoice.
 */
export async function makeInvoice(
  uow: UnitOfWork,
  row: SubscriptionRow,
  key: { periodStart: Date; reason: BillingReason },
  fresh: readonly ProposedLine[],
  pending: Pick<Pending, 'ids' | 'lines' | 'usageIds'>,
  options: StepOptions,
): Promise<InvoiceMade> {
  const { tx, actor: scope } = uow;
  const lines = [...fresh, ...pending.lines].map((l) => invoiceLine(l, row.time_zone));
  const credit = lines.length > 0 && linesBelowZero(lines, row.default_tax_rates);
  const invoiceId = lines.length === 0 || credit ? null : newId('inv');
  // Made while paused: kept as a draft, or issued and then voided or marked uncollectible.
  const paused = row.status === 'paused' ? row.pause_behavior : null;
  const issued = invoiceId !== null && paused !== 'keep_as_draft';
  const issueAt = new Date(options.now.getTime() + options.graceMinutes * 60_000);
  // The ledger is claimed with what the key comes to (the invoice about to be made, and the
  // run's work on it) by the statement that claims it.
  const entry = { subscriptionId: row.id, ...key, testClockId: row.test_clock_id, invoiceId };
  const claimed = await claimLedger(
    tx,
    scope,
    entry,
    issued ? { work: 'issue', at: issueAt } : null,
    issued ? paused : null,
  );
  if (!claimed) return { invoiceId: null, claimed: false };
  options.reads?.pendingChanged(row.id);
  if (credit) await creditInstead(uow, row, fresh, pending, options);
  if (invoiceId === null) return { invoiceId: null, claimed: true };
  await createSubscriptionDraft(
    uow,
    {
      id: invoiceId,
      customerId: row.customer_id,
      currency: row.currency,
      subscriptionId: row.id,
      billingReason: key.reason,
      daysUntilDue: row.days_until_due,
      defaultTaxRates: row.default_tax_rates,
      lines,
    },
    options.now,
    options.reads?.invoices,
  );
  await deletePendingLines(tx, scope, row.id, [...pending.ids, ...pending.usageIds]);
  return { invoiceId, claimed: true };
}
