// What a caller that makes or issues many invoices in one transaction (a batch of the billing
// run, src/subscriptions/run-boundaries.ts and run-invoices.ts) has read once for all of them:
// the tenant's settings, the invoices' customers, and the tax rates, each read once. The rules
// of an invoice take each from here when the caller gives them, and read it themselves
// otherwise, as every invoice of the API does: the rules are the same either way, only the
// statements differ. The customers are read as an invoice reads its own (not locked), in the
// same transaction.
import { getCustomerRow, getCustomerRows } from '../customers/service.ts';
import type { CustomerRow } from '../customers/store.ts';
import type { Queryable } from '../db/pool.ts';
import { getSettingsWithTenantName, type SettingsWithTenantName } from '../settings/service.ts';
import { sharedTaxRateReads, type TaxRateReads } from '../taxes/service.ts';
import type { TenantScope } from '../tenancy.ts';

export interface SharedReads {
  /** The tenant's settings and name. */
  settings: SettingsWithTenantName;
  /** Customers by id; one that is not here is read. */
  customers: ReadonlyMap<string, CustomerRow>;
  /** The tax rates, each read once (sharedTaxRateReads). */
  taxRates: TaxRateReads;
}

/** The invoice's customer: the caller's, else read (404 `param` when there is none). */
export async function customerOf(
  tx: Queryable,
  scope: TenantScope,
  id: string,
  reads: SharedReads | undefined,
): Promise<CustomerRow> {
  return reads?.customers.get(id) ?? getCustomerRow(tx, scope, id);
}

/** The settings and the tenant's name: the caller's, else read. */
export async function settingsOf(
  tx: Queryable,
  scope: TenantScope,
  reads: SharedReads | undefined,
): Promise<SettingsWithTenantName> {
  return reads?.settings ?? getSettingsWithTenantName(tx, scope);
}

/**
 * Reads, in the caller's transaction, the settings and these customers at once (one round trip:
 * the transaction's statements are pipelined); the rates are read as invoices name them.
 */
export async function readShared(
  tx: Queryable,
  scope: TenantScope,
  customerIds: Iterable<string>,
): Promise<SharedReads> {
  const [settings, customers] = await Promise.all([
    getSettingsWithTenantName(tx, scope),
    getCustomerRows(tx, scope, [...new Set(customerIds)]),
  ]);
  return { settings, customers, taxRates: sharedTaxRateReads(tx, scope) };
}
