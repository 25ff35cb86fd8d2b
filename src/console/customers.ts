// The console's reading of customers: the search (./customers-store.ts). Lists and a
// customer's own page use the customers, invoices, subscriptions, payments and credit notes
// services, as the API does.
import type { Db } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import { searchCustomers, type FoundCustomer } from './customers-store.ts';

export const SEARCH_LIMIT = 50;

export function findCustomers(db: Db, scope: TenantScope, text: string): Promise<FoundCustomer[]> {
  const trimmed = text.trim();
  const prefix = trimmed.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return searchCustomers(db, scope, trimmed, prefix, SEARCH_LIMIT);
}
