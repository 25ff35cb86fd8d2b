// What the steps of one batch of the billing run read once for all its subscriptions, rather
// than each step again (docs/billing-run.md, "What a batch reads once"): their items with their
// prices and products, their pending lines, their customers, the tenant's settings, and the tax
// rates their invoices name (each read once, by the first invoice that names it). Read right
// after the batch has claimed its subscriptions: their items and pending lines change only
// under the subscription's lock, which the batch holds, so what it read is what each step
// would read — until a step writes them itself, which it says here (`itemsWritten`,
// `pendingChanged`), so that a later step of the same subscription finds what was written.
// A step without a batch (the API's, a subscription stepped alone) reads each itself.
import { getPricesWithProducts, type CatalogPrice } from '../catalog/service.ts';
import type { Queryable } from '../db/pool.ts';
import { readShared, type SharedReads } from '../invoices/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { selectPendingLines, type PendingLineRow } from './ledger-store.ts';
import type { PricedItem } from './lines.ts';
import { selectItems, type ItemRow, type SubscriptionRow } from './store.ts';

/** Items as a step bills them: each with its price and product. */
export function priceItems(
  items: readonly ItemRow[],
  prices: ReadonlyMap<string, CatalogPrice>,
): PricedItem[] {
  return items.map((item) => ({
    id: item.id,
    quantity: item.quantity,
    billedFull: item.billed_full,
    meteredFrom: item.metered_from,
    catalog: prices.get(item.price_id)!,
  }));
}

/** The rows of each subscription, in the order read; every id has an entry. */
function bySubscription<Row extends { subscription_id: string }>(
  ids: readonly string[],
  rows: readonly Row[],
): Map<string, Row[]> {
  const grouped = new Map(ids.map((id) => [id, [] as Row[]]));
  for (const row of rows) grouped.get(row.subscription_id)?.push(row);
  return grouped;
}

export class BatchReads {
  /** What the batch's invoices take instead of reading it each (settings, customers, rates). */
  readonly invoices: SharedReads;
  readonly #items: Map<string, PricedItem[]>;
  readonly #pending: Map<string, PendingLineRow[]>;
  /** The prices of the items and of the pending lines (a pending line's price may be gone). */
  readonly #prices: ReadonlyMap<string, CatalogPrice>;

  private constructor(
    invoices: SharedReads,
    items: Map<string, PricedItem[]>,
    pending: Map<string, PendingLineRow[]>,
    prices: ReadonlyMap<string, CatalogPrice>,
  ) {
    this.invoices = invoices;
    this.#items = items;
    this.#pending = pending;
    this.#prices = prices;
  }

  /** Reads, in the batch's transaction, what the steps of the claimed `rows` need. */
  static async read(
    tx: Queryable,
    scope: TenantScope,
    rows: readonly SubscriptionRow[],
  ): Promise<BatchReads> {
    const ids = rows.map((r) => r.id);
    // One round trip (the transaction's statements are pipelined), then the prices of both.
    const [items, pending, shared] = await Promise.all([
      selectItems(tx, scope, ids),
      selectPendingLines(tx, scope, ids),
      readShared(
        tx,
        scope,
        rows.map((r) => r.customer_id),
      ),
    ]);
    const priceIds = new Set([...items, ...pending].map((row) => row.price_id));
    const prices = await getPricesWithProducts(tx, scope, [...priceIds]);
    const priced = new Map(
      [...bySubscription(ids, items)].map(([id, rowsOf]) => [id, priceItems(rowsOf, prices)]),
    );
    return new BatchReads(shared, priced, bySubscription(ids, pending), prices);
  }

  /** The subscription's items, or undefined: not read by the batch, to be read. */
  items(subscriptionId: string): PricedItem[] | undefined {
    return this.#items.get(subscriptionId);
  }

  /** The step wrote the subscription's items: these, as it wrote them. */
  itemsWritten(subscriptionId: string, items: PricedItem[]): void {
    this.#items.set(subscriptionId, items);
  }

  /** The subscription's pending lines, or undefined: to be read. */
  pending(subscriptionId: string): PendingLineRow[] | undefined {
    return this.#pending.get(subscriptionId);
  }

  /** The step may have written the subscription's pending lines: they are read again. */
  pendingChanged(subscriptionId: string): void {
    this.#pending.delete(subscriptionId);
  }

  /** A price with its product, if the batch read it. */
  price(id: string): CatalogPrice | undefined {
    return this.#prices.get(id);
  }
}
