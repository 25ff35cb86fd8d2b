// Tax rate rules: exact percentages, immutable tax terms, activity, events; and the look-up
// invoices (and credit notes) use to apply rates.
import type { Db, Queryable } from '../db/pool.ts';
import { existingRowById } from '../db/row-by-id.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { isCountryCode } from '../customers/service.ts';
import type { VatCategory } from '../documents/model.ts';
import { ParameterInvalidError, ParameterMissingError, ResourceMissingError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { TenantScope } from '../tenancy.ts';
import type { RateForBreakdown } from './breakdown.ts';
import { formatPercentage, parsePercentage, percentageToNumber } from './percentage.ts';
import {
  CATEGORIES_WITH_REASON,
  type TaxAmount,
  type TaxRate,
  type TaxRateCreate,
  type TaxRateUpdate,
} from './schemas.ts';
import {
  insertTaxRate,
  selectTaxRate,
  selectTaxRatePage,
  selectTaxRates,
  updateTaxRate as updateTaxRateRow,
  type TaxRateMutable,
  type TaxRateRow,
} from './store.ts';

export {
  allocateCredit,
  creditableTotal,
  remainingCreditable,
  type Creditable,
  type CreditAllocation,
} from './allocation.ts';
export {
  allocateLineCredit,
  combineAllocations,
  lineCreditable,
  lineGross,
  type LineForCredit,
} from './line-allocation.ts';
export { computeTaxBreakdown, MixedTaxBehaviourError, type TaxBreakdown } from './breakdown.ts';

export function taxRateFromRow(row: TaxRateRow): TaxRate {
  return {
    id: row.id,
    object: 'tax_rate',
    displayName: row.display_name,
    percentage: percentageToNumber(readPercentage(row)),
    inclusive: row.inclusive,
    taxType: row.tax_type,
    category: row.category,
    exemptionReason: row.exemption_reason,
    country: row.country,
    state: row.state,
    jurisdiction: row.jurisdiction,
    description: row.description,
    active: row.active,
    metadata: row.metadata,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function readPercentage(row: TaxRateRow): bigint {
  const units = parsePercentage(row.percentage);
  if (units === null) throw new RangeError(`stored percentage ${row.percentage} is unreadable`);
  return units;
}

/** A rate as invoices price and freeze it: its terms, and its EN 16931 category. */
export interface RateForInvoice extends RateForBreakdown {
  category: VatCategory;
  exemptionReason: string | null;
}

export function rateForBreakdown(row: TaxRateRow): RateForInvoice {
  return {
    id: row.id,
    displayName: row.display_name,
    percentage: readPercentage(row),
    inclusive: row.inclusive,
    category: row.category,
    exemptionReason: row.exemption_reason,
  };
}

/** Categories that charge no VAT must say why (EN 16931 BR-E-10, BR-AE-10, …). */
function checkedReason(category: VatCategory, reason: string | null): string | null {
  if (reason === null && (CATEGORIES_WITH_REASON as readonly string[]).includes(category)) {
    throw new ParameterMissingError(
      'exemptionReason',
      `A rate of category ${category} needs exemptionReason: the legal text printed on documents.`,
    );
  }
  return reason;
}

function checkedPercentage(value: number): bigint {
  const units = parsePercentage(value);
  if (units === null) {
    throw new ParameterInvalidError(
      'percentage',
      'percentage must be at least 0 and below 100, with at most 4 decimal places.',
    );
  }
  return units;
}

function checkedCountry(country: string | null | undefined): string | null {
  if (country == null) return null;
  if (!isCountryCode(country)) {
    throw new ParameterInvalidError('country', `Unknown country code '${country}'.`);
  }
  return country;
}

export function createTaxRate(
  db: Db,
  request: WriteRequest,
  input: TaxRateCreate,
): Promise<Written<TaxRate>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const percentage = checkedPercentage(input.percentage);
    const row = await insertTaxRate(tx, scope, newId('txr'), {
      percentage: formatPercentage(percentage),
      inclusive: input.inclusive,
      tax_type: input.taxType ?? null,
      category: input.category ?? 'S',
      display_name: input.displayName,
      exemption_reason: checkedReason(input.category ?? 'S', input.exemptionReason ?? null),
      country: checkedCountry(input.country),
      state: input.state ?? null,
      jurisdiction: input.jurisdiction ?? null,
      description: input.description ?? null,
      active: input.active ?? true,
      metadata: input.metadata ?? {},
    });
    const rate = taxRateFromRow(row);
    uow.event('tax_rate.created', rate);
    return rate;
  });
}

const loadTaxRate = existingRowById(selectTaxRate, 'tax rate');

export async function getTaxRate(db: Queryable, scope: TenantScope, id: string): Promise<TaxRate> {
  return taxRateFromRow(await loadTaxRate(db, scope, id));
}

function refuseChange(param: string): never {
  throw new ParameterInvalidError(
    param,
    `${param} cannot change after creation (issued invoices refer to it); create a new tax rate instead.`,
  );
}

export function updateTaxRate(
  db: Db,
  request: WriteRequest,
  id: string,
  patch: TaxRateUpdate,
): Promise<Written<TaxRate>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const current = await loadTaxRate(tx, scope, id, { forUpdate: true });
    // The tax terms may be repeated (a client sending back what it read) but never changed.
    if (
      patch.percentage !== undefined &&
      checkedPercentage(patch.percentage) !== readPercentage(current)
    ) {
      refuseChange('percentage');
    }
    if (patch.inclusive !== undefined && patch.inclusive !== current.inclusive) {
      refuseChange('inclusive');
    }
    if (patch.taxType !== undefined && patch.taxType !== current.tax_type) refuseChange('taxType');
    if (patch.category !== undefined && patch.category !== current.category) {
      refuseChange('category');
    }
    const fields: TaxRateMutable = {
      display_name: patch.displayName ?? current.display_name,
      exemption_reason: checkedReason(
        current.category,
        patch.exemptionReason === undefined ? current.exemption_reason : patch.exemptionReason,
      ),
      country: patch.country === undefined ? current.country : checkedCountry(patch.country),
      state: patch.state === undefined ? current.state : patch.state,
      jurisdiction: patch.jurisdiction === undefined ? current.jurisdiction : patch.jurisdiction,
      description: patch.description === undefined ? current.description : patch.description,
      active: patch.active ?? current.active,
      metadata: patch.metadata === undefined ? current.metadata : (patch.metadata ?? {}),
    };
    const rate = taxRateFromRow(await updateTaxRateRow(tx, scope, id, fields));
    uow.event('tax_rate.updated', rate);
    return rate;
  });
}

/** One page of tax rates, newest first, active or not if asked (the store's page reader). */
export const listTaxRates = selectTaxRatePage;

/** How rates are read: the rows of those of `ids` that exist (in one tenant and environment). */
export type TaxRateReads = (ids: readonly string[]) => Promise<TaxRateRow[]>;

/**
 * Reads of rates shared by the many invoices one transaction prices (a batch of the billing
 * run): each rate is read once, by the first invoice that names it, and the invoices that name
 * it too, at the same time or later, take that row.
 */
export function sharedTaxRateReads(db: Queryable, scope: TenantScope): TaxRateReads {
  const read = new Map<string, Promise<TaxRateRow | undefined>>();
  return async (ids) => {
    const unique = [...new Set(ids)];
    const missing = unique.filter((id) => !read.has(id));
    if (missing.length > 0) {
      const rows = selectTaxRates(db, scope, missing).then((r) => new Map(r.map((x) => [x.id, x])));
      for (const id of missing)
        read.set(
          id,
          rows.then((byId) => byId.get(id)),
        );
    }
    const rows = await Promise.all(unique.map((id) => read.get(id)!));
    return rows.filter((row) => row !== undefined);
  };
}

/**
 * The rates an invoice names, from this tenant and environment only: an id of another tenant
 * or environment is as unknown as a made-up one (404 resource_missing, `param` names where).
 * Rates in `newlyUsed` must be active: an inactive rate stays on the documents that already
 * carry it but is refused for new use (400 parameter_invalid). `reads`: read by the caller's
 * shared reads (sharedTaxRateReads) rather than here.
 */
export async function getTaxRatesForUse(
  db: Queryable,
  scope: TenantScope,
  uses: readonly { ids: readonly string[]; param: string }[],
  newlyUsed: ReadonlySet<string>,
  reads: TaxRateReads = (ids) => selectTaxRates(db, scope, ids),
): Promise<Map<string, RateForInvoice>> {
  const wanted = [...new Set(uses.flatMap((u) => u.ids))];
  // No rates named (the common untaxed draft): no query.
  const found = await reads(wanted);
  const rows = new Map(found.map((r) => [r.id, r]));
  for (const use of uses) {
    for (const id of use.ids) {
      const row = rows.get(id);
      if (!row) throw new ResourceMissingError('tax rate', id, use.param);
      if (!row.active && newlyUsed.has(id)) {
        throw new ParameterInvalidError(use.param, `The tax rate '${id}' is inactive.`);
      }
    }
  }
  return new Map([...rows.values()].map((row) => [row.id, rateForBreakdown(row)]));
}

/**
 * A frozen breakdown entry as the API shows it, in the schema's key order (jsonb keeps its
 * own). Entries frozen before categories existed were standard-rated.
 */
export function taxAmountFromStored(t: StoredTaxAmount): TaxAmount {
  return {
    taxRateId: t.taxRateId,
    displayName: t.displayName,
    percentage: t.percentage,
    inclusive: t.inclusive,
    category: t.category ?? 'S',
    exemptionReason: t.exemptionReason ?? null,
    taxableAmount: t.taxableAmount,
    amount: t.amount,
  };
}

/** A breakdown entry as stored in jsonb (older entries have no category). */
export type StoredTaxAmount = Omit<TaxAmount, 'category' | 'exemptionReason'> &
  Partial<Pick<TaxAmount, 'category' | 'exemptionReason'>>;
