// SQL for tax rates. Every query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import { rowById } from '../db/row-by-id.ts';
import { pageReader } from '../paging.ts';
import type { VatCategory } from '../documents/model.ts';
import type { TenantScope } from '../tenancy.ts';

export interface TaxRateRow {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  display_name: string;
  /** numeric(7,4) as PostgreSQL prints it, e.g. "8.8750": read with parsePercentage. */
  percentage: string;
  inclusive: boolean;
  tax_type: 'vat' | 'gst' | 'sales_tax' | 'other' | null;
  /** EN 16931 VAT category (S, Z, E, AE, K, G, O, L, M); never changes after creation. */
  category: VatCategory;
  exemption_reason: string | null;
  country: string | null;
  state: string | null;
  jurisdiction: string | null;
  description: string | null;
  active: boolean;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

/** The fields PATCH may change. */
export type TaxRateMutable = Pick<
  TaxRateRow,
  | 'display_name'
  | 'exemption_reason'
  | 'country'
  | 'state'
  | 'jurisdiction'
  | 'description'
  | 'active'
  | 'metadata'
>;

/** The changeable fields in the order both the INSERT and the UPDATE list them. */
function mutableValues(fields: TaxRateMutable): unknown[] {
  return [
    fields.display_name,
    fields.exemption_reason,
    fields.country,
    fields.state,
    fields.jurisdiction,
    fields.description,
    fields.active,
    JSON.stringify(fields.metadata),
  ];
}

export async function insertTaxRate(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fixed: Pick<TaxRateRow, 'percentage' | 'inclusive' | 'tax_type' | 'category'>,
  fields: TaxRateMutable,
): Promise<TaxRateRow> {
  const { rows } = await db.query<TaxRateRow>(
    `INSERT INTO tax_rates (tenant_id, environment, id, percentage, inclusive, tax_type, category,
                            display_name, exemption_reason, country, state, jurisdiction,
                            description, active, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING *`,
    [
      scope.tenantId,
      scope.environment,
      id,
      fixed.percentage,
      fixed.inclusive,
      fixed.tax_type,
      fixed.category,
      ...mutableValues(fields),
    ],
  );
  return rows[0]!;
}

export const selectTaxRate = rowById<TaxRateRow>('SELECT * FROM tax_rates');

/** The rates among `ids` that exist in this tenant and environment (primary key look-ups). */
export async function selectTaxRates(
  db: Queryable,
  scope: TenantScope,
  ids: readonly string[],
): Promise<TaxRateRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<TaxRateRow>(
    `SELECT * FROM tax_rates WHERE tenant_id = $1 AND environment = $2 AND id = ANY($3::text[])`,
    [scope.tenantId, scope.environment, ids],
  );
  return rows;
}

export async function updateTaxRate(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: TaxRateMutable,
): Promise<TaxRateRow> {
  const { rows } = await db.query<TaxRateRow>(
    `UPDATE tax_rates SET display_name = $4, exemption_reason = $5, country = $6, state = $7,
            jurisdiction = $8, description = $9, active = $10, metadata = $11,
            updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING *`,
    [scope.tenantId, scope.environment, id, ...mutableValues(fields)],
  );
  return rows[0]!;
}

/** One page, newest first: index tax_rates_page, or tax_rates_by_active with the filter. */
export const selectTaxRatePage = pageReader<TaxRateRow, { active?: boolean | undefined }>(
  'SELECT * FROM tax_rates',
  { filters: (f) => [['active', f.active]] },
);
