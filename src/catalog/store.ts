// SQL for products and prices. Every query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import { rowById, rowsByIds } from '../db/row-by-id.ts';
import { rowWrites } from '../db/row-writes.ts';
import { pageReader } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { Price, PriceTier } from './schemas.ts';

export interface ProductRow {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  name: string;
  description: string | null;
  unit_code: string;
  tax_rates: string[];
  active: boolean;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

// Named columns, not *: a prepared statement's result must not change shape under a migration.
const PRODUCT_COLUMNS = `tenant_id, environment, id, name, description, unit_code, tax_rates,
  active, metadata, created_at, updated_at`;

const PRODUCT_FIELDS = [
  'name',
  'description',
  'unit_code',
  'tax_rates',
  'active',
  'metadata',
] as const;

export type ProductFields = Pick<ProductRow, (typeof PRODUCT_FIELDS)[number]>;

const productWrites = rowWrites<ProductRow, ProductFields>('products', {
  changeable: PRODUCT_FIELDS,
  json: ['metadata'],
  returning: PRODUCT_COLUMNS,
});

export const insertProduct = productWrites.insert;
export const updateProduct = productWrites.update;

// An update never changes the key: FOR NO KEY UPDATE leaves prices being created for the
// product meanwhile (their foreign key takes KEY SHARE) free to go on.
export const selectProduct = rowById<ProductRow>(`SELECT ${PRODUCT_COLUMNS} FROM products`, {
  lock: 'FOR NO KEY UPDATE',
});

/** One page, newest first: index products_page, or products_by_active with the filter. */
export const selectProductPage = pageReader<ProductRow, { active?: boolean | undefined }>(
  `SELECT ${PRODUCT_COLUMNS} FROM products`,
  { filters: (f) => [['active', f.active]] },
);

export interface PriceRow {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  product_id: string;
  currency: string;
  type: Price['type'];
  recurring_interval: NonNullable<Price['recurring']>['interval'] | null;
  recurring_interval_count: number | null;
  recurring_usage: NonNullable<Price['recurring']>['usage'] | null;
  meter_id: string | null;
  billing_scheme: Price['billingScheme'];
  unit_amount: number | null;
  /** numeric(28,12) as PostgreSQL prints it, e.g. "0.025000000000". */
  unit_amount_decimal: string | null;
  package_size: number | null;
  tiers_mode: Price['tiersMode'];
  tiers: PriceTier[] | null;
  nickname: string | null;
  active: boolean;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

const PRICE_COLUMNS = `tenant_id, environment, id, product_id, currency, type, recurring_interval,
  recurring_interval_count, recurring_usage, meter_id, billing_scheme, unit_amount,
  unit_amount_decimal, package_size, tiers_mode, tiers, nickname, active, metadata, created_at,
  updated_at`;

/** What a new price is made of; its terms never change afterwards. */
export type PriceFields = Omit<
  PriceRow,
  'tenant_id' | 'environment' | 'id' | 'product_id' | 'created_at' | 'updated_at'
>;

/** What PATCH may change. */
export type PriceMutable = Pick<PriceRow, 'nickname' | 'active' | 'metadata'>;

/**
 * Inserts the price if its product exists in the tenant and environment (one round trip);
 * undefined when it does not.
 */
export async function insertPrice(
  db: Queryable,
  scope: TenantScope,
  id: string,
  productId: string,
  f: PriceFields,
): Promise<PriceRow | undefined> {
  const { rows } = await db.query<PriceRow>(
    `INSERT INTO prices (tenant_id, environment, id, product_id, currency, type,
                         recurring_interval, recurring_interval_count, recurring_usage, meter_id,
                         billing_scheme, unit_amount, unit_amount_decimal, package_size,
                         tiers_mode, tiers, nickname, active, metadata)
     SELECT $1, $2, $3, id, $5::text, $6::text, $7::text, $8::integer, $9::text, $10::text,
            $11::text, $12::bigint, $13::numeric, $14::bigint, $15::text, $16::jsonb, $17::text,
            $18::boolean, $19::jsonb
       FROM products WHERE tenant_id = $1 AND environment = $2 AND id = $4
     RETURNING ${PRICE_COLUMNS}`,
    [
      scope.tenantId,
      scope.environment,
      id,
      productId,
      f.currency,
      f.type,
      f.recurring_interval,
      f.recurring_interval_count,
      f.recurring_usage,
      f.meter_id,
      f.billing_scheme,
      f.unit_amount,
      f.unit_amount_decimal,
      f.package_size,
      f.tiers_mode,
      f.tiers === null ? null : JSON.stringify(f.tiers),
      f.nickname,
      f.active,
      JSON.stringify(f.metadata),
    ],
  );
  return rows[0];
}

export const selectPrice = rowById<PriceRow>(`SELECT ${PRICE_COLUMNS} FROM prices`, {
  lock: 'FOR NO KEY UPDATE',
});

export async function updatePrice(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: PriceMutable,
): Promise<PriceRow> {
  const { rows } = await db.query<PriceRow>(
    `UPDATE prices SET nickname = $4, active = $5, metadata = $6, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${PRICE_COLUMNS}`,
    [
      scope.tenantId,
      scope.environment,
      id,
      fields.nickname,
      fields.active,
      JSON.stringify(fields.metadata),
    ],
  );
  return rows[0]!;
}

/**
 * One page, newest first: index prices_page, prices_by_active, or prices_by_product (also
 * with both filters: a product has few prices).
 */
export const selectPricePage = pageReader<
  PriceRow,
  { productId?: string | undefined; active?: boolean | undefined }
>(`SELECT ${PRICE_COLUMNS} FROM prices`, {
  filters: (f) => [
    ['product_id', f.productId],
    ['active', f.active],
  ],
});

/** A price with what a subscription's line needs of its product. */
export interface PriceWithProductRow extends PriceRow {
  product_name: string;
  product_unit_code: string;
  product_tax_rates: string[];
}

const JOINED_PRICE_COLUMNS = PRICE_COLUMNS.split(',')
  .map((column) => `p.${column.trim()}`)
  .join(', ');

/** The prices among `ids` with their products, in one query (primary key look-ups). */
export const selectPricesWithProducts = rowsByIds<PriceWithProductRow>(
  `SELECT ${JOINED_PRICE_COLUMNS}, pr.name AS product_name, pr.unit_code AS product_unit_code,
          pr.tax_rates AS product_tax_rates
     FROM prices p
     JOIN products pr ON pr.tenant_id = p.tenant_id AND pr.environment = p.environment
                     AND pr.id = p.product_id`,
  { alias: 'p' },
);
