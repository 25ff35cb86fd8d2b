// The overview's figures (docs/console.md, "Overview"): monthly recurring revenue, open and
// overdue receivables, and revenue per month for the last 12 months, per currency. Money stays
// in integer minor units; the one division (a period's amount over its months) is exact until
// the total is rounded half up, once per currency.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import { selectReceivables, selectRecurring, selectRevenueByMonth } from './overview-store.ts';

export interface Overview {
  recurring: { currency: string; monthly: bigint }[];
  receivables: { currency: string; open: bigint; overdue: bigint; invoices: number }[];
  /** The 12 local months up to this one (`YYYY-MM`), oldest first. */
  months: string[];
  /** Revenue per currency, one amount per month of `months`. */
  revenue: { currency: string; amounts: bigint[] }[];
}

/** A period's amount per month is amount × k / (12 × interval count), k by its interval. */
const TWELFTHS_PER_UNIT: Record<string, bigint> = {
  month: 12n,
  year: 1n,
  week: 52n,
  day: 365n,
};

function roundedHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

/** A local calendar month `YYYY-MM` of an instant in a time zone. */
function localMonth(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit' })
    .formatToParts(at)
    .reduce<Record<string, string>>((all, p) => ({ ...all, [p.type]: p.value }), {});
  return `${parts.year}-${parts.month}`;
}

function monthsUpTo(month: string, count: number): string[] {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  return Array.from({ length: count }, (_, i) => {
    const index = year * 12 + (mon - 1) - (count - 1 - i);
    return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
  });
}

export async function overview(
  db: Db,
  clock: Clock,
  scope: TenantScope,
  timeZone: string,
): Promise<Overview> {
  const now = clock.now();
  const months = monthsUpTo(localMonth(now, timeZone), 12);
  // 12 months and a day before now reaches back past the first of the oldest local month.
  const since = new Date(now.getTime() - 367 * 86_400_000);
  const today = new Intl.DateTimeFormat('en-CA', { timeZone }).format(now);
  const [recurringRows, receivableRows, revenueRows] = await Promise.all([
    selectRecurring(db, scope),
    selectReceivables(db, scope, today),
    selectRevenueByMonth(db, scope, since, timeZone),
  ]);

  // Σ amount × k / (12 × count), summed as exact fractions per currency, rounded once.
  const fractions = new Map<string, { numerator: bigint; denominator: bigint }>();
  for (const row of recurringRows) {
    const numerator = BigInt(row.amount) * (TWELFTHS_PER_UNIT[row.interval] ?? 0n);
    const denominator = 12n * BigInt(row.interval_count);
    const sum = fractions.get(row.currency) ?? { numerator: 0n, denominator: 1n };
    fractions.set(row.currency, {
      numerator: sum.numerator * denominator + numerator * sum.denominator,
      denominator: sum.denominator * denominator,
    });
  }
  const recurring = [...fractions]
    .map(([currency, f]) => ({ currency, monthly: roundedHalfUp(f.numerator, f.denominator) }))
    .sort((a, b) => a.currency.localeCompare(b.currency));

  const revenue = new Map<string, bigint[]>();
  for (const row of revenueRows) {
    const index = months.indexOf(row.month);
    if (index < 0) continue;
    const amounts = revenue.get(row.currency) ?? months.map(() => 0n);
    amounts[index] = BigInt(row.amount);
    revenue.set(row.currency, amounts);
  }
  return {
    recurring,
    receivables: receivableRows.map((r) => ({
      currency: r.currency,
      open: BigInt(r.open),
      overdue: BigInt(r.overdue),
      invoices: r.invoices,
    })),
    months,
    revenue: [...revenue].map(([currency, amounts]) => ({ currency, amounts })),
  };
}
