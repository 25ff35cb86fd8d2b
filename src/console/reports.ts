// The reports page's figures that must come from indexes alone (docs/console.md, "Reports"):
// receivables by age per currency, today (UTC), as the receivables report sums them.
import { todayUtcOf, type Clock } from '../clock.ts';
import type { Queryable } from '../db/pool.ts';
import { AGING_BUCKETS, type AgingBucket } from '../reports/schemas.ts';
import type { TenantScope } from '../tenancy.ts';
import { selectAging } from './reports-store.ts';

export interface Aging {
  asOf: string;
  totals: {
    currency: string;
    invoices: number;
    buckets: Record<AgingBucket, bigint>;
    total: bigint;
  }[];
}

export async function agingToday(db: Queryable, clock: Clock, scope: TenantScope): Promise<Aging> {
  const asOf = todayUtcOf(clock);
  const rows = await selectAging(db, scope, asOf);
  return {
    asOf,
    totals: rows.map((r) => ({
      currency: r.currency,
      invoices: r.invoices,
      buckets: Object.fromEntries(
        AGING_BUCKETS.map((bucket, i) => [bucket, BigInt(r.buckets[i] ?? 0)]),
      ) as Record<AgingBucket, bigint>,
      total: BigInt(r.total),
    })),
  };
}
