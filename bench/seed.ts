// Bulk data for the benchmark in plain SQL (INSERT … SELECT generate_series), by the rules of
// dataset.ts. Only the columns the data set needs are named: columns a later migration adds
// with a default take it. Statements run two at a time (the machine has two cores), each on a
// slice of at most CHUNK rows, so the largest tenant does not make one long statement.
import pg from 'pg';
import type { TenantPlan } from './dataset.ts';
import type { TenantKeys } from './project.ts';

const CHUNK = 100_000;
const PARALLEL = 2;

/** A slice of one tenant's rows: numbers lo..hi of total (the tenant has `customers`). */
interface Slice {
  tenantId: string;
  index: number;
  total: number;
  customers: number;
  lo: number;
  hi: number;
}

/** Slices of at most CHUNK rows, small tenants grouped into one statement. */
function slices(tenants: Omit<Slice, 'lo' | 'hi'>[]): Slice[][] {
  const batches: Slice[][] = [];
  let batch: Slice[] = [];
  let rows = 0;
  for (const t of tenants) {
    for (let lo = 1; lo <= t.total; lo += CHUNK) {
      const hi = Math.min(t.total, lo + CHUNK - 1);
      if (rows + hi - lo + 1 > CHUNK && batch.length > 0) {
        batches.push(batch);
        batch = [];
        rows = 0;
      }
      batch.push({ ...t, lo, hi });
      rows += hi - lo + 1;
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** The slices as the parameters $1..$6 of a statement that reads them with SLICES. */
function sliceParams(batch: Slice[]): unknown[] {
  return [
    batch.map((s) => s.tenantId),
    batch.map((s) => s.index),
    batch.map((s) => s.total),
    batch.map((s) => s.customers),
    batch.map((s) => s.lo),
    batch.map((s) => s.hi),
  ];
}
const SLICES = `unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[])
    AS p(tenant_id, idx, total, customers, lo, hi)
  CROSS JOIN LATERAL generate_series(p.lo, p.hi) AS n`;

// The customer's fields as SQL of its tenant number `t` and its number `c` (dataset.ts builds
// the same ids and e-mail addresses).
const T3 = (t: string) => `lpad(${t}::text, 3, '0')`;
const CUSTOMER_ID = (t: string, c: string) =>
  `'cus_t' || ${T3(t)} || '_' || lpad(${c}::text, 8, '0')`;
const CUSTOMER_NAME = (t: string, c: string) => `'Customer ' || ${c} || ' of tenant ' || ${t}`;
const CUSTOMER_EMAIL = (t: string, c: string) =>
  `'c' || ${c} || '@t' || ${T3(t)} || '.example.com'`;
// Every other customer has an address (all six keys, as the API stores one).
const CUSTOMER_ADDRESS = (c: string) => `CASE WHEN ${c} % 2 = 0 THEN jsonb_build_object(
    'line1', ${c} || ' Market Street', 'line2', NULL, 'city', 'Berlin', 'state', NULL,
    'postalCode', '10115', 'country', 'DE') END`;
// Spread over 2025 in order of the number.
const CREATED_AT = (n: string) =>
  `timestamptz '2025-01-01 00:00:00+00' + (${n}::float8 / p.total) * interval '365 days'`;

const CUSTOMERS = `INSERT INTO customers (tenant_id, environment, id, name, email, address, created_at, updated_at)
  SELECT p.tenant_id, 'test', ${CUSTOMER_ID('p.idx', 'n')}, ${CUSTOMER_NAME('p.idx', 'n')},
         ${CUSTOMER_EMAIL('p.idx', 'n')}, ${CUSTOMER_ADDRESS('n')}, ${CREATED_AT('n')}, ${CREATED_AT('n')}
    FROM ${SLICES}`;

// Invoice n: its customer (spread over the tenant's), 1–3 lines (by n / 10, independent of the
// status, which goes by n % 10), line j of quantity 1 + (n + j) % 3 and unit amount
// 500 + ((13n + 7j) % 100) × 50; a quarter of the invoices taxed at the tenant's 19 % VAT
// (exclusive). Issued ones (open, paid) are numbered gapless in order of n: 8 of every 10
// numbers n are issued. The tax is rounded here only to make rows the invoices' CHECK accepts;
// issuing a seeded draft prices it again in the API.
const LINE_COUNT = '(1 + (n / 10) % 3)';
const QUANTITY = '(1 + (n + j) % 3)';
const UNIT_AMOUNT = '(500 + ((n * 13 + j * 7) % 100) * 50)';

// A paid invoice has its payment (the database checks amount_paid against the payments), where
// the schema has payments (a baseline may be older). An open invoice past its due date has had
// its invoice.overdue recorded, where the schema records it (overdue_at), as a running
// installation's worker would have done on the day: otherwise the first run of the worker's
// overdue job during the measurements would announce a backlog of some 300,000 invoices at
// once, which no installation ever sees.
const INVOICES = ({
  payments,
  overdue,
}: {
  payments: boolean;
  overdue: boolean;
}) => `WITH invoice AS (
  INSERT INTO invoices (tenant_id, environment, id, customer_id, number, status, currency,
    default_tax_rates, subtotal, tax, total_excluding_tax, total, tax_amounts, amount_paid,
    amount_remaining, due_date, days_until_due, customer_snapshot, issued_at, paid_at,
    created_at, updated_at${overdue ? ', overdue_at' : ''})
  SELECT v.tenant_id, 'test', v.id, ${CUSTOMER_ID('v.idx', 'v.c')},
         CASE WHEN v.status <> 'draft' THEN 'INV-' || lpad(((v.n / 10) * 8 + v.n % 10 - 1)::text, 6, '0') END,
         v.status, 'eur',
         CASE WHEN v.taxed THEN ARRAY[v.rate] ELSE '{}' END,
         v.subtotal, v.tax, v.subtotal, v.subtotal + v.tax,
         CASE WHEN v.taxed THEN jsonb_build_array(jsonb_build_object('taxRateId', v.rate,
           'displayName', 'VAT', 'percentage', 19, 'inclusive', false,
           'taxableAmount', v.subtotal, 'amount', v.tax)) ELSE '[]' END,
         CASE WHEN v.status = 'paid' THEN v.subtotal + v.tax ELSE 0 END,
         CASE WHEN v.status = 'paid' THEN 0 ELSE v.subtotal + v.tax END,
         CASE WHEN v.status <> 'draft' THEN (v.created_at + interval '31 days')::date END,
         30,
         CASE WHEN v.status <> 'draft' THEN jsonb_build_object(
           'name', ${CUSTOMER_NAME('v.idx', 'v.c')}, 'email', ${CUSTOMER_EMAIL('v.idx', 'v.c')},
           'address', ${CUSTOMER_ADDRESS('v.c')}, 'taxIds', '[]'::jsonb, 'taxExempt', 'none') END,
         CASE WHEN v.status <> 'draft' THEN v.created_at + interval '1 hour' END,
         CASE WHEN v.status = 'paid' THEN v.created_at + interval '10 days' END,
         v.created_at, v.created_at${
           overdue
             ? `,
         CASE WHEN v.status = 'open' AND (v.created_at + interval '31 days')::date < current_date
              THEN (v.created_at + interval '32 days') END`
             : ''
         }
    FROM (
      SELECT s.*, CASE WHEN s.taxed THEN round(s.subtotal * 0.19)::bigint ELSE 0 END AS tax
        FROM (
          SELECT p.tenant_id, p.idx, n,
                 'inv_t' || ${T3('p.idx')} || '_' || lpad(n::text, 8, '0') AS id,
                 1 + (n::bigint * 7919) % p.customers AS c,
                 CASE WHEN n % 10 < 2 THEN 'draft' WHEN n % 10 < 7 THEN 'open' ELSE 'paid' END AS status,
                 n % 4 = 3 AS taxed,
                 'txr_t' || ${T3('p.idx')} || '_vat19' AS rate,
                 (SELECT sum(${QUANTITY} * ${UNIT_AMOUNT}) FROM generate_series(0, ${LINE_COUNT} - 1) AS j)::bigint AS subtotal,
                 ${CREATED_AT('n')} + interval '1 hour' AS created_at
            FROM ${SLICES}
        ) AS s
    ) AS v
  RETURNING tenant_id, environment, id, customer_id, currency, amount_paid, paid_at)
  ${payments ? PAYMENTS : 'SELECT count(*) FROM invoice'}`;

const PAYMENTS = `INSERT INTO payments (tenant_id, environment, id, invoice_id, customer_id, currency, amount,
                        method, received_at, created_at)
  SELECT tenant_id, environment, 'pay_' || substr(id, 5), id, customer_id, currency,
         amount_paid, 'bank_transfer', paid_at, paid_at
    FROM invoice WHERE amount_paid > 0`;

const DESCRIPTIONS = `(ARRAY['Consulting', 'Subscription, monthly', 'Support hours', 'Licence', 'Travel expenses'])[1 + (n + j) % 5]`;
const LINES = `INSERT INTO invoice_lines (tenant_id, environment, invoice_id, id, position, description,
    quantity, unit_amount, amount, created_at)
  SELECT p.tenant_id, 'test', 'inv_t' || ${T3('p.idx')} || '_' || lpad(n::text, 8, '0'),
         'il_t' || ${T3('p.idx')} || '_' || lpad(n::text, 8, '0') || '_' || j, j, ${DESCRIPTIONS},
         ${QUANTITY}, ${UNIT_AMOUNT}, ${QUANTITY} * ${UNIT_AMOUNT}, ${CREATED_AT('n')} + interval '1 hour'
    FROM ${SLICES}
    CROSS JOIN LATERAL generate_series(0, ${LINE_COUNT} - 1) AS j`;

const TAX_RATES = `INSERT INTO tax_rates (tenant_id, environment, id, display_name, percentage, inclusive,
    tax_type, country)
  SELECT t.tenant_id, 'test', 'txr_t' || ${T3('t.idx')} || '_vat' || r.percentage, r.name,
         r.percentage, false, 'vat', 'DE'
    FROM unnest($1::text[], $2::int[]) AS t(tenant_id, idx),
         (VALUES (19, 'VAT'), (7, 'VAT reduced')) AS r(percentage, name)`;

// Issuing takes the next number from the tenant's counter: it starts after the seeded ones.
const COUNTERS = `INSERT INTO invoice_number_counters (tenant_id, environment, last_number)
  SELECT tenant_id, environment, count(*) FROM invoices WHERE number IS NOT NULL GROUP BY 1, 2`;

/** Runs `work` on each item, PARALLEL at a time. */
async function inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

export interface SeedTimes {
  customers: number;
  invoices: number;
  lines: number;
  vacuum: number;
}

/** What seeding took, with the tenants and keys and the invoice lines it made. */
export interface SeedReport extends SeedTimes {
  /** Tenants and keys made through the checkout's own service functions. */
  keys: number;
  total: number;
  lineRows: number;
}

/** Seeds the planned tenants (already made, with their keys) into the database `url`. */
export async function seed(
  url: string,
  plan: TenantPlan[],
  tenants: TenantKeys[],
  log: (message: string) => void,
): Promise<SeedTimes> {
  // Without triggers (session_replication_role = replica): the data are consistent by
  // construction, and the schema's per-row checks (a paid invoice's payments, say), each a
  // query planned while the table was empty, would make a bulk load quadratic.
  const db = new pg.Pool({
    connectionString: url,
    max: PARALLEL,
    options: '-c session_replication_role=replica',
  });
  const ids = tenants.map((t) => t.tenantId);
  const indexes = plan.map((t) => t.index);
  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    return (performance.now() - started) / 1000;
  };
  try {
    const { rows } = await db.query<{ payments: boolean; overdue: boolean }>(
      `SELECT to_regclass('payments') IS NOT NULL AS payments,
              EXISTS (SELECT FROM information_schema.columns
                       WHERE table_name = 'invoices' AND column_name = 'overdue_at') AS overdue`,
    );
    const invoicesSql = INVOICES(rows[0]!);
    await db.query(TAX_RATES, [ids, indexes]);
    const customers = await timed(async () => {
      const batches = slices(
        plan.map((t, i) => ({
          tenantId: ids[i]!,
          index: t.index,
          total: t.customers,
          customers: t.customers,
        })),
      );
      await inParallel(batches, (batch) =>
        db.query(CUSTOMERS, sliceParams(batch)).then(() => undefined),
      );
      // Fresh statistics before invoices refer to these rows: without them the foreign-key
      // checks may plan as sequential scans.
      await db.query('ANALYZE customers');
    });
    log(`customers: ${customers.toFixed(1)} s`);
    const invoiceSlices = slices(
      plan.map((t, i) => ({
        tenantId: ids[i]!,
        index: t.index,
        total: t.invoices,
        customers: t.customers,
      })),
    );
    const invoices = await timed(async () => {
      await inParallel(invoiceSlices, (batch) =>
        db.query(invoicesSql, sliceParams(batch)).then(() => undefined),
      );
      await db.query('ANALYZE invoices');
      await db.query(COUNTERS);
    });
    log(`invoices: ${invoices.toFixed(1)} s`);
    const lines = await timed(() =>
      inParallel(invoiceSlices, (batch) =>
        db.query(LINES, sliceParams(batch)).then(() => undefined),
      ),
    );
    log(`invoice lines: ${lines.toFixed(1)} s`);
    // Settle before measuring: visibility maps set and statistics fresh, so no autovacuum of
    // the fresh rows runs during the measurements; then a checkpoint writes them out.
    const vacuum = await timed(async () => {
      await Promise.all([
        db.query('VACUUM (ANALYZE) customers'),
        db.query('VACUUM (ANALYZE) invoices'),
      ]);
      await db.query('VACUUM (ANALYZE) invoice_lines');
      await db.query('VACUUM (ANALYZE)');
      await db.query('CHECKPOINT');
    });
    log(`vacuum and checkpoint: ${vacuum.toFixed(1)} s`);
    return { customers, invoices, lines, vacuum };
  } finally {
    await db.end();
  }
}
