// SQL for customers. Every query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import { rowById } from '../db/row-by-id.ts';
import { pageReader } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { AddressOut, TaxIdValue } from './schemas.ts';

export interface CustomerRow {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  address: AddressOut | null;
  description: string | null;
  metadata: Record<string, string>;
  tax_ids: TaxIdValue[];
  tax_exempt: 'none' | 'exempt' | 'reverse';
  locale: string | null;
  buyer_reference: string | null;
  electronic_address: { scheme: string; value: string } | null;
  /** An IANA name, or null for the tenant's (settings). */
  time_zone: string | null;
  /** The test clock the customer lives on (test environment), or null: real time. */
  test_clock_id: string | null;
  created_at: Date;
  updated_at: Date;
}

// Named columns, not *: a prepared statement's result must not change shape under a migration.
const ROW_COLUMNS = `tenant_id, environment, id, name, email, phone, address, description, metadata,
  tax_ids, tax_exempt, locale, buyer_reference, electronic_address, time_zone, test_clock_id,
  created_at, updated_at`;

export type CustomerFields = Pick<
  CustomerRow,
  | 'name'
  | 'email'
  | 'phone'
  | 'address'
  | 'description'
  | 'metadata'
  | 'tax_ids'
  | 'tax_exempt'
  | 'locale'
  | 'buyer_reference'
  | 'electronic_address'
  | 'time_zone'
  | 'test_clock_id'
>;

function values(f: CustomerFields): unknown[] {
  return [
    f.name,
    f.email,
    f.phone,
    f.address === null ? null : JSON.stringify(f.address),
    f.description,
    JSON.stringify(f.metadata),
    JSON.stringify(f.tax_ids),
    f.tax_exempt,
    f.locale,
    f.buyer_reference,
    f.electronic_address === null ? null : JSON.stringify(f.electronic_address),
    f.time_zone,
    f.test_clock_id,
  ];
}

export async function insertCustomer(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: CustomerFields,
): Promise<CustomerRow> {
  const { rows } = await db.query<CustomerRow>(
    `INSERT INTO customers (tenant_id, environment, id, name, email, phone, address, description,
                            metadata, tax_ids, tax_exempt, locale, buyer_reference,
                            electronic_address, time_zone, test_clock_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
     RETURNING ${ROW_COLUMNS}`,
    [scope.tenantId, scope.environment, id, ...values(fields)],
  );
  return rows[0]!;
}

// Named (prepared once per connection): invoices read their customer on every create. An
// update locks FOR NO KEY UPDATE (it never changes the key), which leaves the foreign-key checks
// of invoices being created for the customer meanwhile free to go on.
export const selectCustomer = rowById<CustomerRow>(`SELECT ${ROW_COLUMNS} FROM customers`, {
  lock: 'FOR NO KEY UPDATE',
  name: 'customer',
});

/** The customers with these ids (primary key look-ups); unknown ids are left out. */
export async function selectCustomers(
  db: Queryable,
  scope: TenantScope,
  ids: readonly string[],
): Promise<CustomerRow[]> {
  const { rows } = await db.query<CustomerRow>(
    `SELECT ${ROW_COLUMNS} FROM customers
      WHERE tenant_id = $1 AND environment = $2 AND id = ANY($3::text[])`,
    [scope.tenantId, scope.environment, ids],
  );
  return rows;
}

export async function updateCustomer(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: CustomerFields,
): Promise<CustomerRow> {
  const { rows } = await db.query<CustomerRow>(
    `UPDATE customers SET name = $4, email = $5, phone = $6, address = $7, description = $8,
            metadata = $9, tax_ids = $10, tax_exempt = $11, locale = $12, buyer_reference = $13,
            electronic_address = $14, time_zone = $15, test_clock_id = $16,
            updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING ${ROW_COLUMNS}`,
    [scope.tenantId, scope.environment, id, ...values(fields)],
  );
  return rows[0]!;
}

/** One page, newest first: index customers_page, or customers_by_email with the filter. */
// Named: prepared once per connection, so the hot list skips parsing and planning.
export const selectCustomerPage = pageReader<CustomerRow, { email?: string | undefined }>(
  `SELECT ${ROW_COLUMNS} FROM customers`,
  {
    filters: (f) => [[(email) => `lower(email) = lower(${email})`, f.email]],
    name: 'customers_page',
  },
);
