// Dunning: the worker's daily chase of unpaid invoices. It records invoice.overdue once for
// every open invoice past its due date, then queues the reminders of the tenants' schedules.
// `today` is a parameter (the UTC date), so tests drive the job with a clock of their own;
// the worker calls it every few minutes with the real one (src/jobs/index.ts). Any number of
// workers may run it at once: each event and each reminder happens once.
import type { Db } from '../db/pool.ts';
import { recordOverdueInvoices, scopesWithNewlyOverdueInvoices } from '../invoices/service.ts';
import { inBatches } from './batches.ts';
import { queueDueReminders } from './reminders.ts';

/** Invoices marked overdue per unit of work. */
const BATCH = 100;

/** Records invoice.overdue for the open invoices past their due date on `today`. */
export async function recordOverdue(db: Db, today: string): Promise<number> {
  const scopes = await scopesWithNewlyOverdueInvoices(db, today);
  return inBatches(db, scopes, BATCH, (uow) => recordOverdueInvoices(uow, today, BATCH));
}

/** One run of the job for the UTC date `today` (YYYY-MM-DD). */
export async function runDunning(
  db: Db,
  today: string,
): Promise<{ overdue: number; reminders: number }> {
  const overdue = await recordOverdue(db, today);
  const reminders = await queueDueReminders(db, today);
  return { overdue, reminders };
}
