// Reading subscriptions: one by id, pages of them, each with its items and their prices.
import { getPricesWithProducts } from '../catalog/service.ts';
import type { Db, Queryable } from '../db/pool.ts';
import { ResourceMissingError } from '../errors.ts';
import type { PageRequest } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { BatchReads } from './batch-reads.ts';
import { subscriptionFromRow } from './model.ts';
import type { Subscription } from './schemas.ts';
import {
  selectItems,
  selectSubscription,
  selectSubscriptionPage,
  type SubscriptionRow,
} from './store.ts';

/** The subscription as the API shows it; its items as the run's batch holds them, if it does. */
export async function shown(
  db: Queryable,
  scope: TenantScope,
  row: SubscriptionRow,
  reads?: BatchReads,
): Promise<Subscription> {
  const known = reads?.items(row.id);
  if (known) {
    const prices = new Map(known.map((item) => [item.catalog.price.id, item.catalog]));
    const items = known.map((i) => ({
      id: i.id,
      price_id: i.catalog.price.id,
      quantity: i.quantity,
    }));
    return subscriptionFromRow(row, items, prices);
  }
  const items = await selectItems(db, scope, [row.id]);
  const prices = await getPricesWithProducts(
    db,
    scope,
    items.map((i) => i.price_id),
  );
  return subscriptionFromRow(row, items, prices);
}

export async function getSubscriptionRow(
  db: Queryable,
  scope: TenantScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<SubscriptionRow> {
  const row = await selectSubscription(db, scope, id, options);
  if (!row) throw new ResourceMissingError('subscription', id);
  return row;
}

export async function getSubscription(
  db: Db,
  scope: TenantScope,
  id: string,
): Promise<Subscription> {
  return shown(db, scope, await getSubscriptionRow(db, scope, id));
}

export interface SubscriptionFilters {
  customerId?: string | undefined;
  status?: string | undefined;
  priceId?: string | undefined;
}

export async function listSubscriptions(
  db: Db,
  scope: TenantScope,
  filters: SubscriptionFilters,
  page: PageRequest,
) {
  const rows = await selectSubscriptionPage(db, scope, filters, page);
  const items = await selectItems(
    db,
    scope,
    rows.map((r) => r.id),
  );
  const prices = await getPricesWithProducts(
    db,
    scope,
    items.map((i) => i.price_id),
  );
  // Each row with what the API shows of it, for the page (which keys its cursor on the row).
  return rows.map((row) => ({
    ...row,
    view: subscriptionFromRow(
      row,
      items.filter((i) => i.subscription_id === row.id),
      prices,
    ),
  }));
}
