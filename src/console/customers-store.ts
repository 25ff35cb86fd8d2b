// SQL of the console's customer search: a customer id, or a prefix of a name or an e-mail
// address (case-insensitive). Each prefix is walked in order on its own index
// (customers_by_name_prefix, customers_by_email_prefix) and stops after one page.
import type { Queryable } from '../db/pool.ts';
import { allRows } from '../db/rows.ts';
import type { TenantScope } from '../tenancy.ts';

export interface FoundCustomer {
  id: string;
  name: string | null;
  email: string | null;
  created_at: Date;
}

/** `prefix` must already be lower-cased and have LIKE's `%`, `_` and `\` escaped. */
export async function searchCustomers(
  db: Queryable,
  scope: TenantScope,
  text: string,
  prefix: string,
  limit: number,
): Promise<FoundCustomer[]> {
  return allRows<FoundCustomer>(db, {
    name: 'console_customer_search',
    text: `SELECT id, name, email, created_at FROM (
             (SELECT id, name, email, created_at FROM customers
               WHERE tenant_id = $1 AND environment = $2 AND id = $3)
             UNION
             (SELECT id, name, email, created_at FROM customers
               WHERE tenant_id = $1 AND environment = $2 AND lower(name) LIKE $4 || '%'
               ORDER BY lower(name), id LIMIT $5)
             UNION
             (SELECT id, name, email, created_at FROM customers
               WHERE tenant_id = $1 AND environment = $2 AND lower(email) LIKE $4 || '%'
               ORDER BY lower(email), id LIMIT $5)
           ) found
           ORDER BY lower(coalesce(name, email, id)), id LIMIT $5`,
    values: [scope.tenantId, scope.environment, text, prefix, limit],
  });
}
