// What a change of a subscription's items would do, computed without writing anything: the
// items after it, and the lines it bills (prorations of licensed items changed inside their
// period, or — for a change of interval — the credit of the period cut short and the new
// period from the change). PATCH applies a plan; preview-change shows one.
import { getPricesWithProducts, type CatalogPrice } from '../catalog/service.ts';
import type { Queryable } from '../db/pool.ts';
import { ParameterInvalidError, ResourceMissingError } from '../errors.ts';
import type { DocumentLocale } from '../documents/model.ts';
import { newId } from '../ids.ts';
import type { TenantScope } from '../tenancy.ts';
import { periodAt, type Period } from './calendar.ts';
import { checkedPrice, checkedQuantity, type NewItem } from './items.ts';
import {
  fullAmount,
  isLicensed,
  periodLine,
  prorationLines,
  recurrenceOf,
  type PricedItem,
  type ProposedLine,
} from './lines.ts';
import type { PendingUsage } from './usage-lines.ts';
import { currentBasis } from './model.ts';
import { lineLocale, pricedItems } from './periods.ts';
import type { ItemChange } from './schemas.ts';
import type { SubscriptionRow } from './store.ts';

export type ProrationBehavior = 'create_prorations' | 'always_invoice' | 'none';

export interface ChangePlan {
  /** The items after the change, with what each is billed at for the period. */
  items: NewItem[];
  /** The lines the change bills (before the behaviour decides when). */
  lines: ProposedLine[];
  /** Usage of metered items up to `at` at the price they leave (or before they go). */
  pendingUsage: PendingUsage[];
  /** Set when the items move to another interval: a new period starts at `at`, anchored there. */
  newPeriod: { period: Period; lines: ProposedLine[] } | null;
  at: Date;
}

function sameRecurrence(row: SubscriptionRow, catalog: CatalogPrice): boolean {
  const r = recurrenceOf(catalog);
  return r.interval === row.interval && r.intervalCount === row.interval_count;
}

/** Applies the requested item changes to the current items: the items wanted after. */
function wantedItems(
  current: readonly PricedItem[],
  changes: readonly ItemChange[],
  prices: ReadonlyMap<string, CatalogPrice>,
): PricedItem[] {
  const after = new Map(current.map((item) => [item.id, { ...item }]));
  changes.forEach((change, i) => {
    const param = `items.${i}`;
    if (change.id !== undefined) {
      const item = after.get(change.id);
      if (!item) throw new ResourceMissingError('subscription_item', change.id, `${param}.id`);
      if (change.deleted === true) {
        after.delete(change.id);
        return;
      }
      const catalog =
        change.priceId === undefined
          ? item.catalog
          : checkedPrice(prices, change.priceId, param, undefined, { newlyUsed: true });
      // A new price keeps the item's quantity, unless it is metered (measured, no quantity).
      const quantity = change.quantity ?? (isLicensed(catalog) ? item.quantity : undefined);
      after.set(change.id, {
        ...item,
        catalog,
        quantity: checkedQuantity(catalog, quantity, param),
      });
    } else {
      if (change.deleted === true) {
        throw new ParameterInvalidError(`${param}.id`, 'Name the item to delete by its id.');
      }
      if (change.priceId === undefined) {
        throw new ParameterInvalidError(`${param}.priceId`, 'A new item needs a priceId.');
      }
      const catalog = checkedPrice(prices, change.priceId, param, undefined, { newlyUsed: true });
      const id = newId('si');
      after.set(id, {
        id,
        catalog,
        quantity: checkedQuantity(catalog, change.quantity, param),
        billedFull: 0,
        meteredFrom: null,
      });
    }
  });
  const items = [...after.values()];
  if (items.length === 0) {
    throw new ParameterInvalidError('items', 'A subscription keeps at least one item.');
  }
  const first = items[0]!.catalog;
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const { id } = item.catalog.price;
    if (i > 0)
      checkedPrice(new Map([[id, item.catalog]]), id, 'items', first, { newlyUsed: false });
    if (seen.has(id)) {
      throw new ParameterInvalidError('items', `Price ${id} would be on two items.`);
    }
    seen.add(id);
  });
  return items;
}

function asNewItems(items: readonly PricedItem[], billed: (item: PricedItem) => number): NewItem[] {
  return items.map((item, i) => ({
    id: item.id,
    price_id: item.catalog.price.id,
    quantity: item.quantity,
    position: i + 1,
    billed_full: billed(item),
    metered_from: item.meteredFrom,
  }));
}

/** Since when a metered item's usage counts at its current price within `period`. */
function usageStart(item: PricedItem, period: Period): Date {
  return item.meteredFrom && item.meteredFrom > period.start ? item.meteredFrom : period.start;
}

/**
 * Metered items whose price changes, or that go, at `at` inside the period: their usage until
 * then stays at the old price (a pending span), and from then on counts at the new one; an item
 * added counts from `at`.
 */
function splitUsage(
  before: ReadonlyMap<string, PricedItem>,
  after: PricedItem[],
  period: Period,
  at: Date,
): PendingUsage[] {
  const pending: PendingUsage[] = [];
  const kept = new Set(after.map((item) => item.id));
  const leave = (old: PricedItem) => {
    const start = usageStart(old, period);
    if (start < at)
      pending.push({ itemId: old.id, catalog: old.catalog, period: { start, end: at } });
  };
  for (const old of before.values()) {
    if (!isLicensed(old.catalog) && !kept.has(old.id)) leave(old);
  }
  after.forEach((item, i) => {
    if (isLicensed(item.catalog)) return;
    const old = before.get(item.id);
    if (old === undefined) {
      after[i] = { ...item, meteredFrom: at };
    } else if (old.catalog.price.id !== item.catalog.price.id) {
      if (!isLicensed(old.catalog)) leave(old);
      after[i] = { ...item, meteredFrom: at };
    }
  });
  return pending;
}

export async function planChange(
  db: Queryable,
  scope: TenantScope,
  row: SubscriptionRow,
  changes: readonly ItemChange[],
  behavior: ProrationBehavior,
  at: Date,
): Promise<ChangePlan> {
  const [current, locale] = await Promise.all([
    pricedItems(db, scope, row.id),
    lineLocale(db, scope, row),
  ]);
  const named = changes.flatMap((c) => (c.priceId === undefined ? [] : [c.priceId]));
  const prices = await getPricesWithProducts(db, scope, named);
  const after = wantedItems(current, changes, prices);
  const first = after[0]!.catalog;
  if (first.price.currency !== row.currency) {
    throw new ParameterInvalidError(
      'items',
      `The subscription is billed in ${row.currency}; prices in ${first.price.currency} cannot join it.`,
    );
  }
  const basis = currentBasis(row);
  const billing = row.status !== 'trialing' && row.status !== 'scheduled' && basis !== null;
  const before = new Map(current.map((item) => [item.id, item]));
  const none = { lines: [], newPeriod: null, pendingUsage: [], at };
  if (!sameRecurrence(row, first)) {
    if (!billing) return { items: asNewItems(after, () => 0), ...none };
    return intervalChange(row, current, after, basis, at, locale);
  }
  const period = { start: row.current_period_start!, end: row.current_period_end! };
  const pendingUsage = billing ? splitUsage(before, after, period, at) : [];
  const lines: ProposedLine[] = [];
  if (billing && behavior !== 'none') {
    for (const item of after) {
      const old = before.get(item.id) ?? null;
      const changed =
        old === null ||
        old.catalog.price.id !== item.catalog.price.id ||
        old.quantity !== item.quantity;
      if (changed && isLicensed(item.catalog)) {
        lines.push(...prorationLines(old, item, basis, at, locale));
      }
    }
    for (const old of current) {
      if (!after.some((item) => item.id === old.id) && isLicensed(old.catalog)) {
        lines.push(...prorationLines(old, null, basis, at, locale));
      }
    }
  }
  const billed = (item: PricedItem) => {
    if (!billing) return 0;
    const old = before.get(item.id);
    if (behavior === 'none') return old?.billedFull ?? 0;
    return isLicensed(item.catalog) ? fullAmount(item.catalog, item.quantity) : 0;
  };
  return { items: asNewItems(after, billed), lines, newPeriod: null, pendingUsage, at };
}

/** Items moving to another interval: the period ends at `at`, a new one starts there. */
function intervalChange(
  row: SubscriptionRow,
  current: readonly PricedItem[],
  after: readonly PricedItem[],
  basis: Period,
  at: Date,
  locale: DocumentLocale,
): ChangePlan {
  const credit = current
    .filter((item) => isLicensed(item.catalog))
    .flatMap((item) => prorationLines(item, null, basis, at, locale));
  const every = recurrenceOf(after[0]!.catalog);
  const { start, end } = periodAt(at, row.time_zone, every, at);
  const period = { start, end };
  const lines = after
    .filter((item) => isLicensed(item.catalog))
    .map((item) => periodLine(item, period, period, 'create_prorations')!);
  // The period ends at `at`: every metered item's usage until then is billed now, and counts
  // afresh in the new period.
  const ended = { start: row.current_period_start!, end: at };
  const pendingUsage = current
    .filter((item) => !isLicensed(item.catalog))
    .map((item) => ({
      itemId: item.id,
      catalog: item.catalog,
      period: { start: usageStart(item, ended), end: at },
    }))
    .filter((span) => span.period.start < span.period.end);
  const items = asNewItems(
    after.map((item) => ({ ...item, meteredFrom: null })),
    (item) => (isLicensed(item.catalog) ? fullAmount(item.catalog, item.quantity) : 0),
  );
  return { items, lines: credit, newPeriod: { period, lines }, pendingUsage, at };
}
