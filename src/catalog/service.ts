// Catalogue rules: products and their tax rates, prices whose terms never change, and the
// look-up subscriptions price their items with.
import type { Db, Queryable } from '../db/pool.ts';
import { existingRowById } from '../db/row-by-id.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { ParameterInvalidError, ResourceMissingError } from '../errors.ts';
import { newId } from '../ids.ts';
import { getTaxRatesForUse, MixedTaxBehaviourError } from '../taxes/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { getMeter } from '../usage/service.ts';
import { formatDecimal, parseDecimal } from './amount.ts';
import type {
  Price,
  PriceCreate,
  PriceUpdate,
  Product,
  ProductCreate,
  ProductUpdate,
} from './schemas.ts';
import {
  insertPrice,
  insertProduct,
  selectPrice,
  selectPricePage,
  selectPricesWithProducts,
  selectProduct,
  selectProductPage,
  updatePrice as updatePriceRow,
  updateProduct as updateProductRow,
  type PriceRow,
  type ProductRow,
} from './store.ts';
import { checkedPrice } from './terms.ts';

export { lineAmount, unitAmountText, type Quantity } from './amount.ts';
export { MAX_INTERVAL_COUNT } from './terms.ts';
export type { Price, PriceTerms } from './schemas.ts';

export function productFromRow(row: ProductRow): Product {
  return {
    id: row.id,
    object: 'product',
    name: row.name,
    description: row.description,
    unitCode: row.unit_code,
    taxRates: row.tax_rates,
    active: row.active,
    metadata: row.metadata,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function priceFromRow(row: PriceRow): Price {
  const decimal = row.unit_amount_decimal === null ? null : parseDecimal(row.unit_amount_decimal);
  return {
    id: row.id,
    object: 'price',
    productId: row.product_id,
    currency: row.currency,
    type: row.type,
    recurring:
      row.recurring_interval === null
        ? null
        : {
            interval: row.recurring_interval,
            intervalCount: row.recurring_interval_count!,
            usage: row.recurring_usage!,
            meterId: row.meter_id,
          },
    billingScheme: row.billing_scheme,
    unitAmount: row.unit_amount,
    unitAmountDecimal: decimal === null ? null : formatDecimal(decimal),
    packageSize: row.package_size,
    tiersMode: row.tiers_mode,
    // In the API's key order: jsonb keeps its own.
    tiers:
      row.tiers?.map((t) => ({
        upTo: t.upTo,
        unitAmount: t.unitAmount,
        unitAmountDecimal: t.unitAmountDecimal,
        flatAmount: t.flatAmount,
      })) ?? null,
    nickname: row.nickname,
    active: row.active,
    metadata: row.metadata,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * A product's tax rates: of this tenant and environment (404 resource_missing otherwise), the
 * newly named ones active, and all inclusive or all exclusive, as an invoice line needs them.
 */
async function checkedTaxRates(
  tx: Queryable,
  scope: TenantScope,
  ids: readonly string[],
  before: readonly string[],
): Promise<string[]> {
  const newlyUsed = new Set(ids.filter((id) => !before.includes(id)));
  const rates = await getTaxRatesForUse(tx, scope, [{ ids, param: 'taxRates' }], newlyUsed);
  if (new Set(ids.map((id) => rates.get(id)!.inclusive)).size > 1) {
    throw new ParameterInvalidError('taxRates', new MixedTaxBehaviourError().message);
  }
  return [...ids];
}

export function createProduct(
  db: Db,
  request: WriteRequest,
  input: ProductCreate,
): Promise<Written<Product>> {
  return unitOfWork(db, request, async ({ tx, actor }) => {
    const row = await insertProduct(tx, actor, newId('prod'), {
      name: input.name,
      description: input.description ?? null,
      unit_code: input.unitCode ?? 'C62',
      tax_rates: await checkedTaxRates(tx, actor, input.taxRates ?? [], []),
      active: input.active ?? true,
      metadata: input.metadata ?? {},
    });
    return productFromRow(row);
  });
}

const loadProduct = existingRowById(selectProduct, 'product');

export async function getProduct(db: Queryable, scope: TenantScope, id: string): Promise<Product> {
  return productFromRow(await loadProduct(db, scope, id));
}

export function updateProduct(
  db: Db,
  request: WriteRequest,
  id: string,
  patch: ProductUpdate,
): Promise<Written<Product>> {
  return unitOfWork(db, request, async ({ tx, actor }) => {
    const current = await loadProduct(tx, actor, id, { forUpdate: true });
    const row = await updateProductRow(tx, actor, id, {
      name: patch.name ?? current.name,
      description: patch.description === undefined ? current.description : patch.description,
      unit_code: patch.unitCode ?? current.unit_code,
      tax_rates:
        patch.taxRates === undefined
          ? current.tax_rates
          : await checkedTaxRates(tx, actor, patch.taxRates, current.tax_rates),
      active: patch.active ?? current.active,
      metadata: patch.metadata === undefined ? current.metadata : (patch.metadata ?? {}),
    });
    return productFromRow(row);
  });
}

/** One page of products, newest first, active or not if asked (the store's page reader). */
export const listProducts = selectProductPage;

/** A metered price's meter: the tenant's, or 404 naming `recurring.meterId`. */
async function checkedMeter(db: Queryable, scope: TenantScope, meterId: string): Promise<void> {
  try {
    await getMeter(db, scope, meterId);
  } catch (error) {
    if (error instanceof ResourceMissingError) {
      throw new ResourceMissingError('meter', meterId, 'recurring.meterId');
    }
    throw error;
  }
}

export function createPrice(
  db: Db,
  request: WriteRequest,
  input: PriceCreate,
): Promise<Written<Price>> {
  return unitOfWork(db, request, async ({ tx, actor }) => {
    const terms = checkedPrice(input);
    const meterId = terms.recurring?.meterId;
    if (meterId) await checkedMeter(tx, actor, meterId);
    const row = await insertPrice(tx, actor, newId('price'), input.productId, {
      currency: terms.currency,
      type: terms.type,
      recurring_interval: terms.recurring?.interval ?? null,
      recurring_interval_count: terms.recurring?.intervalCount ?? null,
      recurring_usage: terms.recurring?.usage ?? null,
      meter_id: terms.recurring?.meterId ?? null,
      billing_scheme: terms.billingScheme,
      unit_amount: terms.unitAmount,
      unit_amount_decimal: terms.unitAmountDecimal,
      package_size: terms.packageSize,
      tiers_mode: terms.tiersMode,
      tiers: terms.tiers,
      nickname: input.nickname ?? null,
      active: input.active ?? true,
      metadata: input.metadata ?? {},
    });
    if (!row) throw new ResourceMissingError('product', input.productId, 'productId');
    return priceFromRow(row);
  });
}

const loadPrice = existingRowById(selectPrice, 'price');

export async function getPrice(db: Queryable, scope: TenantScope, id: string): Promise<Price> {
  return priceFromRow(await loadPrice(db, scope, id));
}

export function updatePrice(
  db: Db,
  request: WriteRequest,
  id: string,
  patch: PriceUpdate,
): Promise<Written<Price>> {
  return unitOfWork(db, request, async ({ tx, actor }) => {
    const current = await loadPrice(tx, actor, id, { forUpdate: true });
    const row = await updatePriceRow(tx, actor, id, {
      nickname: patch.nickname === undefined ? current.nickname : patch.nickname,
      active: patch.active ?? current.active,
      metadata: patch.metadata === undefined ? current.metadata : (patch.metadata ?? {}),
    });
    return priceFromRow(row);
  });
}

/** One page of prices, newest first, of one product or active or not if asked. */
export const listPrices = selectPricePage;

/** A price with what an invoice line made from it needs of its product. */
export interface CatalogPrice {
  price: Price;
  product: { id: string; name: string; unitCode: string; taxRates: string[] };
}

/**
 * The prices among `ids` with their products, by price id, in one round trip; ids of no price
 * of this tenant and environment are simply absent. Inactive prices and products are included:
 * whether they may still be used is the caller's rule.
 */
export async function getPricesWithProducts(
  tx: Queryable,
  scope: TenantScope,
  ids: readonly string[],
): Promise<Map<string, CatalogPrice>> {
  const rows = await selectPricesWithProducts(tx, scope, ids);
  return new Map(
    rows.map((row) => [
      row.id,
      {
        price: priceFromRow(row),
        product: {
          id: row.product_id,
          name: row.product_name,
          unitCode: row.product_unit_code,
          taxRates: row.product_tax_rates,
        },
      },
    ]),
  );
}
