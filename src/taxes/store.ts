// SQL for tax rates. Every query takes the tenant and the environment.
import { rowById, rowsByIds } from '../db/row-by-id.ts';
import { rowWrites } from '../db/row-writes.ts';
import { pageReader } from '../paging.ts';
import type { VatCategory } from '../documents/model.ts';

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
const MUTABLE = [
  'display_name',
  'exemption_reason',
  'country',
  'state',
  'jurisdiction',
  'description',
  'active',
  'metadata',
] as const;

export type TaxRateMutable = Pick<TaxRateRow, (typeof MUTABLE)[number]>;

/** The tax terms: set at creation, never changed (issued invoices refer to them). */
export type TaxRateTerms = Pick<TaxRateRow, 'percentage' | 'inclusive' | 'tax_type' | 'category'>;

const taxRateWrites = rowWrites<TaxRateRow, TaxRateMutable, TaxRateTerms>('tax_rates', {
  fixed: ['percentage', 'inclusive', 'tax_type', 'category'],
  changeable: MUTABLE,
  json: ['metadata'],
  returning: '*',
});

export const insertTaxRate = taxRateWrites.insert;
export const updateTaxRate = taxRateWrites.update;

export const selectTaxRate = rowById<TaxRateRow>('SELECT * FROM tax_rates');

/** The rates among `ids` that exist in this tenant and environment (primary key look-ups). */
export const selectTaxRates = rowsByIds<TaxRateRow>('SELECT * FROM tax_rates');

/** One page, newest first: index tax_rates_page, or tax_rates_by_active with the filter. */
export const selectTaxRatePage = pageReader<TaxRateRow, { active?: boolean | undefined }>(
  'SELECT * FROM tax_rates',
  { filters: (f) => [['active', f.active]] },
);
