// Bulk data for the benchmark: INSERT … SELECT generate_series in chunks, not the API.
import type { Db } from '../src/db/pool.ts';
import type { TenantScope } from '../src/tenancy.ts';

const CHUNK = 250_000;

export async function seedCustomers(db: Db, scope: TenantScope, count: number): Promise<void> {
  for (let start = 1; start <= count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK - 1);
    await db.query(
      `INSERT INTO customers (tenant_id, environment, id, name, email, created_at, updated_at)
       SELECT $1, $2, 'cus_bench' || lpad(i::text, 9, '0'), 'Customer ' || i, 'c' || i || '@example.com',
              timestamp '2025-01-01' + i * interval '7 millisecond', timestamp '2025-01-01'
         FROM generate_series($3::int, $4::int) AS i`,
      [scope.tenantId, scope.environment, start, end],
    );
  }
}

export interface SeededInvoices {
  seeded: number;
  sample: string | null;
  customerId: string | null;
  draftIds: string[];
}

/** Invoices arrive with the invoices module; until then there is nothing to seed. */
export async function seedInvoices(
  db: Db,
  _scope: TenantScope,
  _count: number,
  _options: { draftsOnly?: boolean } = {},
): Promise<SeededInvoices> {
  const { rows } = await db.query(`SELECT to_regclass('invoices') IS NOT NULL AS present`);
  if (!rows[0].present) return { seeded: 0, sample: null, customerId: null, draftIds: [] };
  throw new Error('seedInvoices: not written yet');
}
