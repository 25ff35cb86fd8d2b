// SQL for customers. Every query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import type { PagePosition } from '../http/paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { AddressOut } from './schemas.ts';

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
  tax_ids: { type: string; value: string }[];
  tax_exempt: 'none' | 'exempt' | 'reverse';
  created_at: Date;
  updated_at: Date;
}

export type CustomerFields = Pick<
  CustomerRow,
  'name' | 'email' | 'phone' | 'address' | 'description' | 'metadata' | 'tax_ids' | 'tax_exempt'
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
                            metadata, tax_ids, tax_exempt)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [scope.tenantId, scope.environment, id, ...values(fields)],
  );
  return rows[0]!;
}

export async function selectCustomer(
  db: Queryable,
  scope: TenantScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<CustomerRow | undefined> {
  const { rows } = await db.query<CustomerRow>(
    `SELECT * FROM customers WHERE tenant_id = $1 AND environment = $2 AND id = $3
     ${options.forUpdate ? 'FOR UPDATE' : ''}`,
    [scope.tenantId, scope.environment, id],
  );
  return rows[0];
}

export async function updateCustomer(
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: CustomerFields,
): Promise<CustomerRow> {
  const { rows } = await db.query<CustomerRow>(
    `UPDATE customers SET name = $4, email = $5, phone = $6, address = $7, description = $8,
            metadata = $9, tax_ids = $10, tax_exempt = $11, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING *`,
    [scope.tenantId, scope.environment, id, ...values(fields)],
  );
  return rows[0]!;
}

// The list's items are rendered to JSON by PostgreSQL itself: the hot path then moves one text
// column per row instead of parsing thirteen (dates, three jsonb) and serialising them again.
// It must render exactly what customerFromRow does (a test compares list items with GET).
const ITEM_JSON = `json_build_object(
    'id', id, 'object', 'customer', 'name', name, 'email', email, 'phone', phone,
    'address', address, 'description', description, 'metadata', metadata, 'taxIds', tax_ids,
    'taxExempt', tax_exempt, 'environment', environment,
    'createdAt', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updatedAt', to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text`;

export interface CustomerPageRow {
  id: string;
  created_at: Date;
  json: string;
}

// Four fixed texts rather than "($n IS NULL OR …)": a generic plan could not use the keyset
// condition as an index bound, and deep pages would then cost as much as their depth.
const PAGE_SQL = {
  customers_page_all: `SELECT id, created_at, ${ITEM_JSON} AS json FROM customers
        WHERE tenant_id = $1 AND environment = $2
        ORDER BY created_at DESC, id DESC LIMIT $3`,
  customers_page_after: `SELECT id, created_at, ${ITEM_JSON} AS json FROM customers
        WHERE tenant_id = $1 AND environment = $2 AND (created_at, id) < ($4, $5)
        ORDER BY created_at DESC, id DESC LIMIT $3`,
  customers_page_email: `SELECT id, created_at, ${ITEM_JSON} AS json FROM customers
        WHERE tenant_id = $1 AND environment = $2 AND lower(email) = lower($4)
        ORDER BY created_at DESC, id DESC LIMIT $3`,
  customers_page_email_after: `SELECT id, created_at, ${ITEM_JSON} AS json FROM customers
        WHERE tenant_id = $1 AND environment = $2 AND lower(email) = lower($4)
          AND (created_at, id) < ($5, $6)
        ORDER BY created_at DESC, id DESC LIMIT $3`,
};

/** One page, newest first: index customers_page, or customers_by_email with the filter. */
export async function selectCustomerPage(
  db: Queryable,
  scope: TenantScope,
  filters: { email?: string | undefined },
  after: PagePosition | null,
  limit: number,
): Promise<CustomerPageRow[]> {
  const values: unknown[] = [scope.tenantId, scope.environment, limit];
  if (filters.email !== undefined) values.push(filters.email);
  if (after) values.push(after.createdAt, after.id);
  const name =
    filters.email !== undefined
      ? after
        ? 'customers_page_email_after'
        : 'customers_page_email'
      : after
        ? 'customers_page_after'
        : 'customers_page_all';
  // Named: prepared once per connection, so the hot list skips parsing and planning.
  const { rows } = await db.query<CustomerPageRow>({ name, text: PAGE_SQL[name], values });
  return rows;
}
