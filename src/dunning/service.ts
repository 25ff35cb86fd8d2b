// Dunning: the worker's daily chase of unpaid invoices. It records invoice.overdue once for
// every open invoice past its due date, then queues the reminders of the tenants' schedules.
// `today` is a parameter (the UTC date), so tests drive the job with a clock of their own;
// the worker calls it every few minutes with the real one (src/jobs/index.ts). Any number of
// workers may run it at once: each event and each reminder happens once.
import type { Db, Queryable } from '../db/pool.ts';
import { recordOverdueInvoices, scopesWithNewlyOverdueInvoices } from '../invoices/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { inBatches, type DunningClock } from './batches.ts';
import { selectNextDunningDay } from './store.ts';
import { queueDueReminders } from './reminders.ts';

/** Invoices marked overdue per unit of work. */
const BATCH = 100;

/**
 * Records invoice.overdue for the open invoices past their due date on `today`: those of
 * customers on real time, or of one test clock's customers.
 */
export async function recordOverdue(
  db: Db,
  today: string,
  testClock: DunningClock = null,
): Promise<number> {
  const clockId = testClock?.id ?? null;
  const scopes = (await scopesWithNewlyOverdueInvoices(db, today, clockId)).filter(
    (s) =>
      testClock === null ||
      (s.tenantId === testClock.scope.tenantId && s.environment === testClock.scope.environment),
  );
  return inBatches(db, scopes, BATCH, (uow) => recordOverdueInvoices(uow, today, BATCH, clockId));
}

/**
 * One run of the job for the UTC date `today` (YYYY-MM-DD): for customers on real time, or
 * for one test clock's customers at the clock's date (a test clock's advance).
 */
export async function runDunning(
  db: Db,
  today: string,
  testClock: DunningClock = null,
): Promise<{ overdue: number; reminders: number }> {
  const overdue = await recordOverdue(db, today, testClock);
  const reminders = await queueDueReminders(db, today, testClock);
  return { overdue, reminders };
}

/** The next instant dunning has something to do for a test clock's customers (00:00 UTC). */
export async function nextDunningAt(
  db: Queryable,
  scope: TenantScope,
  testClockId: string,
): Promise<Date | null> {
  const day = await selectNextDunningDay(db, scope, testClockId);
  return day === null ? null : new Date(`${day}T00:00:00.000Z`);
}
