// Payment reminders (docs/api.md, "Overdue invoices and reminders"): the tenant's schedule (days after the due date, e.g.
// [3, 14, 30]) makes the worker e-mail each open invoice past its due date once per step, in
// the customer's language, with the invoice's PDF. Like the invoice e-mail (src/invoices/mail.ts)
// it states the invoice's total as the attached PDF prints it, and, as it is sent, names the
// credit notes (their PDFs attached) and payments that changed what is due, and what still is.
// The message goes through the mail outbox
// (queued in the step's unit of work, sent outside any transaction); invoice.reminder_sent is
// recorded when the mail server accepted it. A step whose customer has no e-mail address is
// skipped, and one whose message failed for good is not tried again: the next step is.
import { todayUtcOf, type Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { formatAmount, formatDate, resolveLocale, t } from '../documents/i18n.ts';
import type { IssuedDocuments } from '../documents/service.ts';
import type { HostedLinks } from '../hosted/links.ts';
import {
  beforeSignature,
  getInvoice,
  hostedLinkText,
  invoicePdfs,
  invoiceStateText,
  type InvoiceCreditNotes,
} from '../invoices/service.ts';
import { operator } from '../keys/service.ts';
import { getTenant } from '../tenants/service.ts';
import { inBatches, type DunningClock } from './batches.ts';
import { queueMail, type MailKind } from '../mail/outbox.ts';
import {
  claimDueReminders,
  recordReminderOutcome,
  selectReminderFacts,
  selectReminderSchedules,
  setReminderMail,
  type ReminderFacts,
} from './store.ts';

export const REMINDER_MAIL = 'reminder';
/** Steps taken per unit of work. */
const BATCH = 50;

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** Queues the reminder of one step, in the customer's language; its message id, or null. */
async function queueReminder(
  uow: UnitOfWork,
  facts: ReminderFacts,
  tenantName: string,
  today: string,
): Promise<string | null> {
  const seller = { name: facts.seller_name ?? tenantName, email: facts.seller_email };
  if (!facts.customer_email) return null;
  const locale = resolveLocale(facts.customer_locale, resolveLocale(facts.tenant_locale));
  const values = {
    customer: facts.customer_name ?? t(locale, 'party.buyer'),
    number: facts.number,
    issueDate: formatDate(facts.issue_date, locale),
    dueDate: formatDate(facts.due_date, locale),
    days: daysBetween(facts.due_date, today),
    total: formatAmount(facts.total, facts.currency, locale),
    seller: seller.name,
  };
  const body = [
    t(locale, 'email.reminder.body', values),
    t(locale, 'email.reminder.closing'),
    t(locale, 'email.signature', { seller: seller.name }),
  ].join('\n\n');
  return queueMail(uow, {
    kind: REMINDER_MAIL,
    subjectId: facts.invoice_id,
    to: facts.customer_email,
    replyTo: seller.email,
    subject: t(locale, 'email.reminder.subject', values),
    body,
  });
}

/** Takes up to BATCH due steps in the unit of work's scope and queues their e-mails. */
async function remindBatch(
  uow: UnitOfWork,
  schedule: number[],
  today: string,
  testClockId: string | null,
): Promise<number> {
  const { tx, actor: scope } = uow;
  const steps = await claimDueReminders(tx, scope, schedule, today, BATCH, testClockId);
  if (steps.length === 0) return 0;
  const facts = new Map(
    (
      await selectReminderFacts(
        tx,
        scope,
        steps.map((s) => s.invoice_id),
      )
    ).map((f) => [f.invoice_id, f]),
  );
  const { name } = await getTenant(tx, scope.tenantId);
  for (const step of steps) {
    const mailId = await queueReminder(uow, facts.get(step.invoice_id)!, name, today);
    await setReminderMail(tx, scope, step, mailId);
  }
  return steps.length;
}

/**
 * Queues the reminders due on `today` for every tenant with a schedule (invoices of customers
 * on real time), or for the customers of one test clock; returns how many steps were taken.
 * Safe with any number of workers at once: each step is taken once.
 */
export async function queueDueReminders(
  db: Db,
  today: string,
  testClock: DunningClock = null,
): Promise<number> {
  const schedules = await selectReminderSchedules(db, testClock?.scope ?? null);
  const scopes = schedules.map((s) => ({
    tenantId: s.tenant_id,
    environment: s.environment,
    reminders: s.reminders,
  }));
  const clockId = testClock?.id ?? null;
  return inBatches(db, scopes, BATCH, (uow, scope) =>
    remindBatch(uow, scope.reminders, today, clockId),
  );
}

/**
 * The reminder as a kind of the mail outbox: the invoice's PDF and those of its credit notes,
 * what changed what is due and what still is, and the link to its hosted page, as the invoice
 * e-mail has them (its credit notes handed in like the invoice e-mail's); invoice.reminder_sent.
 */
export function reminderMail(
  documents: IssuedDocuments,
  links: HostedLinks,
  creditNotes: InvoiceCreditNotes,
  clock: Clock,
): MailKind {
  return {
    // Added as the message is sent, before its closing lines, so that the text, the attachments
    // and the hosted page tell the same story at that moment.
    async text(db, mail) {
      const scope = operator(mail.tenant_id, mail.environment);
      const invoice = await getInvoice(db, scope, mail.subject_id, todayUtcOf(clock));
      const [facts] = await selectReminderFacts(db, scope, [invoice.id]);
      const locale = resolveLocale(facts?.customer_locale, resolveLocale(facts?.tenant_locale));
      const notes = await creditNotes.issued(db, scope, invoice.id);
      const state =
        invoiceStateText(invoice, notes, locale) ??
        t(locale, 'email.invoice.amountDue', {
          amount: formatAmount(invoice.amountRemaining, invoice.currency, locale),
        });
      const link = await hostedLinkText(db, links, mail, locale);
      const seller = facts?.seller_name ?? (await getTenant(db, scope.tenantId)).name;
      const signature = t(locale, 'email.signature', { seller });
      const closing = `${t(locale, 'email.reminder.closing')}\n\n${signature}`;
      // A message queued before the closing was a paragraph of its own ends with the signature.
      const tail = mail.body.endsWith(`\n\n${closing}`) ? closing : signature;
      return beforeSignature(mail.body, tail, link === null ? [state] : [state, link]);
    },
    async attachments(db, mail) {
      const scope = operator(mail.tenant_id, mail.environment);
      const pdfs = await invoicePdfs(
        db,
        documents,
        creditNotes,
        scope,
        mail.subject_id,
        clock.now(),
      );
      return pdfs.map(({ filename, pdf }) => ({ filename, content: pdf }));
    },

    async recordOutcome(uow, mail) {
      const { tx, actor: scope } = uow;
      const days = await recordReminderOutcome(tx, scope, mail);
      if (days !== undefined && mail.status === 'sent') {
        const subject = await getInvoice(tx, scope, mail.subject_id, todayUtcOf(clock));
        uow.event('invoice.reminder_sent', subject, { reminder: { daysAfterDue: days } });
      }
    },
  };
}
