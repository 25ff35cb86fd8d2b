// SQL for what a subscription's invoices are made of and from: pending proration lines, and the
// exactly-once ledger of (subscription, period, reason) with the run's work on each invoice.
// Every query takes the tenant and the environment, except the run's search for due work
// across tenants (indexes subscriptions_due and subscription_invoices_work_due).
import type { QueryResultRow } from 'pg';
import type { Queryable } from '../db/pool.ts';
import { arraysInStep } from '../db/row-writes.ts';
import type { TenantScope } from '../tenancy.ts';
import type { BillingReason } from './schemas.ts';

/**
 * A statement about one subscription's rows: the tenant, environment and subscription are $1–$3,
 * `values` follow.
 */
export function ofSubscription<Row extends QueryResultRow>(
  db: Queryable,
  scope: TenantScope,
  subscriptionId: string,
  sql: string,
  values: unknown[] = [],
) {
  return db.query<Row>(sql, [scope.tenantId, scope.environment, subscriptionId, ...values]);
}

export interface PendingLineRow {
  id: string;
  /** A proration (its amount fixed), or a span of usage measured when it is billed. */
  kind: 'proration' | 'usage';
  subscription_item_id: string;
  price_id: string;
  description: string;
  quantity: number;
  amount: number;
  period_start: Date;
  period_end: Date;
}

/** The pending lines of these subscriptions, each subscription's in the order they were made. */
export async function selectPendingLines(
  db: Queryable,
  scope: TenantScope,
  subscriptionIds: readonly string[],
): Promise<(PendingLineRow & { subscription_id: string })[]> {
  const { rows } = await db.query<PendingLineRow & { subscription_id: string }>(
    `SELECT subscription_id, id, kind, subscription_item_id, price_id, description,
            quantity::float8 AS quantity, amount::float8 AS amount, period_start, period_end
       FROM subscription_pending_lines
      WHERE tenant_id = $1 AND environment = $2 AND subscription_id = ANY($3::text[])
      ORDER BY subscription_id, created_at, id`,
    [scope.tenantId, scope.environment, subscriptionIds],
  );
  return rows;
}

export async function insertPendingLines(
  db: Queryable,
  scope: TenantScope,
  subscriptionId: string,
  lines: readonly PendingLineRow[],
): Promise<void> {
  if (lines.length === 0) return;
  await ofSubscription(
    db,
    scope,
    subscriptionId,
    `INSERT INTO subscription_pending_lines
       (tenant_id, environment, subscription_id, id, subscription_item_id, price_id, description,
        quantity, amount, period_start, period_end, kind)
     SELECT $1, $2, $3, l.* FROM unnest($4::text[], $5::text[], $6::text[], $7::text[],
            $8::bigint[], $9::bigint[], $10::timestamptz[], $11::timestamptz[], $12::text[])
            AS l(id, item, price, description, quantity, amount, period_start, period_end, kind)`,
    [
      lines.map((l) => l.id),
      lines.map((l) => l.subscription_item_id),
      lines.map((l) => l.price_id),
      lines.map((l) => l.description),
      lines.map((l) => l.quantity),
      lines.map((l) => l.amount),
      lines.map((l) => l.period_start),
      lines.map((l) => l.period_end),
      lines.map((l) => l.kind),
    ],
  );
}

/** Removes pending lines once an invoice (or credit note) carries them. */
export async function deletePendingLines(
  db: Queryable,
  scope: TenantScope,
  subscriptionId: string,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  await ofSubscription(
    db,
    scope,
    subscriptionId,
    `DELETE FROM subscription_pending_lines
      WHERE tenant_id = $1 AND environment = $2 AND subscription_id = $3 AND id = ANY($4::text[])`,
    [ids],
  );
}

export interface LedgerEntry {
  subscriptionId: string;
  periodStart: Date;
  reason: BillingReason;
  invoiceId: string | null;
  testClockId: string | null;
}

/** What the run still does with a subscription's invoice: issue it, then send, void or mark it. */
export type InvoiceWork = 'issue' | 'send' | 'void' | 'mark_uncollectible';

/**
 * Claims (subscription, period, reason) with what it comes to — its invoice (null: none, or a
 * credit instead), the run's work on it and what follows its issue — in one statement: true
 * when this transaction is the first to, false when the row exists (the invoice was made, or
 * decided against, already), and then nothing is written.
 */
export async function claimLedger(
  db: Queryable,
  scope: TenantScope,
  entry: LedgerEntry,
  work: { work: InvoiceWork; at: Date } | null,
  afterIssue: 'void' | 'mark_uncollectible' | null,
): Promise<boolean> {
  const { rowCount } = await ofSubscription(
    db,
    scope,
    entry.subscriptionId,
    `INSERT INTO subscription_invoices
       (tenant_id, environment, subscription_id, period_start, reason, test_clock_id, invoice_id,
        work, work_at, after_issue)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
    [
      entry.periodStart,
      entry.reason,
      entry.testClockId,
      entry.invoiceId,
      work?.work ?? null,
      work?.at ?? null,
      afterIssue,
    ],
  );
  return rowCount === 1;
}

/** A row the run has something to do with, and when. */
export interface DueRow {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  due_at: Date;
}

/** One test clock's rows, or (null) the rows on real time of every tenant. */
export type ClockTarget = { scope: TenantScope; id: string } | null;

/**
 * The run's search for due rows: `realTime` across tenants (its own index), or `onClock` for
 * one clock's rows, which takes the tenant, environment and clock as $1–$3; `values` follow.
 */
export async function dueRows<Row extends QueryResultRow>(
  db: Queryable,
  clock: ClockTarget,
  realTime: string,
  onClock: string,
  values: unknown[],
): Promise<Row[]> {
  const { rows } =
    clock === null
      ? await db.query<Row>(realTime, values)
      : await db.query<Row>(onClock, [
          clock.scope.tenantId,
          clock.scope.environment,
          clock.id,
          ...values,
        ]);
  return rows;
}

/**
 * Subscriptions due at `now`, earliest first: on real time across tenants (index
 * subscriptions_due), or those of one test clock (subscriptions_by_test_clock).
 */
export function selectDueSubscriptions(
  db: Queryable,
  clock: ClockTarget,
  now: Date,
  limit: number,
): Promise<DueRow[]> {
  const columns = 'tenant_id, environment, id, next_action_at AS due_at';
  return dueRows<DueRow>(
    db,
    clock,
    `SELECT ${columns} FROM subscriptions WHERE next_action_at <= $1 AND test_clock_id IS NULL
      ORDER BY next_action_at LIMIT $2`,
    `SELECT ${columns} FROM subscriptions
      WHERE tenant_id = $1 AND environment = $2 AND test_clock_id = $3 AND next_action_at <= $4
      ORDER BY next_action_at LIMIT $5`,
    [now, limit],
  );
}

export interface WorkRow {
  tenant_id: string;
  environment: 'live' | 'test';
  subscription_id: string;
  period_start: Date;
  reason: BillingReason;
  invoice_id: string;
  work: InvoiceWork;
  work_at: Date;
  after_issue: 'void' | 'mark_uncollectible' | null;
}

/** Invoice work due at `now`, earliest first, on real time or on one test clock. */
export function selectDueWork(
  db: Queryable,
  clock: ClockTarget,
  now: Date,
  limit: number,
): Promise<WorkRow[]> {
  const columns = `tenant_id, environment, subscription_id, period_start, reason, invoice_id,
    work, work_at, after_issue`;
  return dueRows<WorkRow>(
    db,
    clock,
    `SELECT ${columns} FROM subscription_invoices
      WHERE work_at <= $1 AND test_clock_id IS NULL ORDER BY work_at LIMIT $2`,
    `SELECT ${columns} FROM subscription_invoices
      WHERE tenant_id = $1 AND environment = $2 AND test_clock_id = $3 AND work_at <= $4
      ORDER BY work_at LIMIT $5`,
    [now, limit],
  );
}

/** The next instant anything of the clock falls due (subscriptions or invoice work). */
export async function selectClockNextDue(
  db: Queryable,
  scope: TenantScope,
  clockId: string,
): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>(
    `SELECT least(
       (SELECT min(next_action_at) FROM subscriptions
         WHERE tenant_id = $1 AND environment = $2 AND test_clock_id = $3),
       (SELECT min(work_at) FROM subscription_invoices
         WHERE tenant_id = $1 AND environment = $2 AND test_clock_id = $3)) AS at`,
    [scope.tenantId, scope.environment, clockId],
  );
  return rows[0]!.at;
}

/**
 * Marks the work of these rows done, each only if it is still at its step `work`: the rows of
 * a batch of the run, done in its transaction, in one statement.
 */
export async function finishLedgerWork(
  db: Queryable,
  scope: TenantScope,
  rows: readonly Pick<WorkRow, 'subscription_id' | 'period_start' | 'reason' | 'work'>[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `UPDATE subscription_invoices s SET work = NULL, work_at = NULL
       FROM unnest($3::text[], $4::timestamptz[], $5::text[], $6::text[])
            AS w(subscription_id, period_start, reason, work)
      WHERE s.tenant_id = $1 AND s.environment = $2 AND s.subscription_id = w.subscription_id
        AND s.period_start = w.period_start AND s.reason = w.reason AND s.work = w.work`,
    [
      scope.tenantId,
      scope.environment,
      ...arraysInStep(rows, ['subscription_id', 'period_start', 'reason', 'work']),
    ],
  );
}

/**
 * Moves the invoice's work on from the step `row.work` (only if that is still the step: a
 * second worker that lost the race changes nothing): the next step and when, or null.
 */
export async function setLedgerWork(
  db: Queryable,
  scope: TenantScope,
  row: Pick<WorkRow, 'subscription_id' | 'period_start' | 'reason' | 'work'>,
  work: { work: InvoiceWork; at: Date } | null,
): Promise<void> {
  await ofSubscription(
    db,
    scope,
    row.subscription_id,
    `UPDATE subscription_invoices SET work = $6, work_at = $7
      WHERE tenant_id = $1 AND environment = $2 AND subscription_id = $3 AND period_start = $4
        AND reason = $5 AND work = $8`,
    [row.period_start, row.reason, work?.work ?? null, work?.at ?? null, row.work],
  );
}
