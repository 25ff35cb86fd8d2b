// The checks every set of subscription items passes: prices that exist, are active and
// recurring, in one currency and on one interval; a quantity only where the price is licensed.
import type { CatalogPrice } from '../catalog/service.ts';
import { ParameterInvalidError, ResourceMissingError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { ItemRow } from './store.ts';

export type NewItem = Omit<ItemRow, 'subscription_id'>;

/** Checks one item's price against the subscription's currency and interval (if known). */
export function checkedPrice(
  prices: ReadonlyMap<string, CatalogPrice>,
  priceId: string,
  param: string,
  like: CatalogPrice | undefined,
  options: { newlyUsed: boolean },
): CatalogPrice {
  const catalog = prices.get(priceId);
  if (!catalog) throw new ResourceMissingError('price', priceId, `${param}.priceId`);
  const { price } = catalog;
  if (options.newlyUsed && !price.active) {
    throw new ParameterInvalidError(`${param}.priceId`, `Price ${priceId} is not active.`);
  }
  if (price.type !== 'recurring' || price.recurring === null) {
    throw new ParameterInvalidError(
      `${param}.priceId`,
      `Price ${priceId} is one-time; a subscription's items need recurring prices.`,
    );
  }
  if (like !== undefined) {
    const a = like.price.recurring!;
    const b = price.recurring;
    if (price.currency !== like.price.currency) {
      throw new ParameterInvalidError(
        `${param}.priceId`,
        `Price ${priceId} is in ${price.currency}; the subscription's items are in ${like.price.currency}.`,
      );
    }
    if (a.interval !== b.interval || a.intervalCount !== b.intervalCount) {
      throw new ParameterInvalidError(
        `${param}.priceId`,
        `Price ${priceId} recurs every ${b.intervalCount} ${b.interval}; the other items every ${a.intervalCount} ${a.interval}.`,
      );
    }
  }
  return catalog;
}

/** A licensed price takes a quantity (default 1); a metered one is measured, and takes none. */
export function checkedQuantity(
  catalog: CatalogPrice,
  quantity: number | undefined,
  param: string,
): number {
  if (catalog.price.recurring!.usage === 'metered') {
    if (quantity !== undefined) {
      throw new ParameterInvalidError(
        `${param}.quantity`,
        'A metered price is billed by its usage; give no quantity.',
      );
    }
    return 0;
  }
  return quantity ?? 1;
}

/** The items of a new subscription, checked, with their ids. */
export function checkedItems(
  inputs: readonly { priceId: string; quantity?: number | undefined }[],
  prices: ReadonlyMap<string, CatalogPrice>,
): NewItem[] {
  let first: CatalogPrice | undefined;
  const seen = new Set<string>();
  return inputs.map((input, i) => {
    const param = `items.${i}`;
    const catalog = checkedPrice(prices, input.priceId, param, first, { newlyUsed: true });
    first ??= catalog;
    if (seen.has(input.priceId)) {
      throw new ParameterInvalidError(
        `${param}.priceId`,
        `Price ${input.priceId} is named twice; give one item with its quantity.`,
      );
    }
    seen.add(input.priceId);
    return {
      id: newId('si'),
      price_id: input.priceId,
      quantity: checkedQuantity(catalog, input.quantity, param),
      position: i + 1,
      billed_full: 0,
      metered_from: null,
    };
  });
}
