// Bulk data for the benchmark: INSERT … SELECT generate_series in chunks, not the API.
import type { Db } from '../src/db/pool.ts';
import type { TenantScope } from '../src/tenancy.ts';

const CHUNK = 250_000;

/** One bulk statement in its own transaction, free of the pool's statement timeout. */
async function bulk(db: Db, sql: string, params: unknown[]): Promise<void> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query(sql, params);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

export async function seedCustomers(db: Db, scope: TenantScope, count: number): Promise<void> {
  for (let start = 1; start <= count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK - 1);
    await bulk(
      db,
      `INSERT INTO customers (tenant_id, environment, id, name, email, created_at, updated_at)
       SELECT $1, $2, 'cus_bench' || lpad(i::text, 9, '0'), 'Customer ' || i, 'c' || i || '@example.com',
              timestamp '2025-01-01' + i * interval '7 millisecond', timestamp '2025-01-01'
         FROM generate_series($3::int, $4::int) AS i`,
      [scope.tenantId, scope.environment, start, end],
    );
  }
  // Fresh statistics before invoices reference these rows: without them the foreign-key
  // checks may plan as sequential scans (seen: 100,000 invoices taking minutes).
  await db.query('ANALYZE customers');
}

export interface SeededInvoices {
  seeded: number;
  sample: string | null;
  customerId: string | null;
}

/**
 * Drafts of one line each (10.00 EUR), spread over the seeded customers. With `draftsOnly`
 * (for the issue benchmark) they get ids of their own and are returned.
 */
export async function seedInvoices(
  db: Db,
  scope: TenantScope,
  count: number,
  options: { draftsOnly?: boolean } = {},
): Promise<SeededInvoices> {
  const prefix = options.draftsOnly ? 'inv_draft' : 'inv_bench';
  for (let start = 1; start <= count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK - 1);
    await bulk(
      db,
      `INSERT INTO invoices (tenant_id, environment, id, customer_id, status, currency, subtotal,
                             total, total_excluding_tax, amount_remaining, created_at, updated_at)
       SELECT $1, $2, $3 || lpad(i::text, 9, '0'), 'cus_bench' || lpad((1 + i % 1000)::text, 9, '0'),
              'draft', 'eur', 1000, 1000, 1000, 1000,
              timestamp '2025-01-01' + i * interval '7 millisecond', timestamp '2025-01-01'
         FROM generate_series($4::int, $5::int) AS i`,
      [scope.tenantId, scope.environment, prefix, start, end],
    );
    await db.query('ANALYZE invoices');
    await bulk(
      db,
      `INSERT INTO invoice_lines (tenant_id, environment, invoice_id, id, position, description,
                                  quantity, unit_amount, amount)
       SELECT $1, $2, $3 || lpad(i::text, 9, '0'), 'il_' || $3 || lpad(i::text, 9, '0'), 0,
              'Subscription', 1, 1000, 1000
         FROM generate_series($4::int, $5::int) AS i`,
      [scope.tenantId, scope.environment, prefix, start, end],
    );
  }
  return { seeded: count, sample: `${prefix}000000001`, customerId: 'cus_bench000000001' };
}
