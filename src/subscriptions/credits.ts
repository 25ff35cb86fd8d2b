// Lines a subscription cannot invoice because they add up below zero (EN 16931 keeps credits
// in credit notes): each credit goes against the invoice that billed the credited period — a
// credit note (reason order_change), capped at what that invoice still allows, or, while that
// invoice is still a draft in its grace period, a line on it — and the charges wait, pending,
// for the next invoice (docs/subscriptions.md, "No negative invoice").
import { utcDateOf } from '../clock.ts';
import { creditNoteInWork, grossOnLine } from '../credit-notes/service.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import type { IssuedDocuments } from '../documents/service.ts';
import {
  addSubscriptionLines,
  billedLine,
  getInvoice,
  linesBelowZero,
} from '../invoices/service.ts';
import { deletePendingLines, insertPendingLines } from './ledger-store.ts';
import { invoiceLine, pendingRows, type ProposedLine } from './lines.ts';
import type { SubscriptionRow } from './store.ts';

interface Against {
  status: string;
  lines: { line: ProposedLine; invoiceLineId: string }[];
}

/** The credits grouped by the invoice that billed what each credits. */
async function creditsByInvoice(
  uow: UnitOfWork,
  row: SubscriptionRow,
  credits: readonly ProposedLine[],
): Promise<Map<string, Against>> {
  const groups = new Map<string, Against>();
  for (const line of credits) {
    const billed = await billedLine(
      uow.tx,
      uow.actor,
      row.id,
      line.subscriptionItemId,
      line.period.start,
    );
    // Nothing billed that time (or only a void invoice did): there is nothing to credit.
    if (!billed) continue;
    const group = groups.get(billed.invoice_id) ?? { status: billed.status, lines: [] };
    group.lines.push({ line, invoiceLineId: billed.id });
    groups.set(billed.invoice_id, group);
  }
  return groups;
}

export async function creditInstead(
  uow: UnitOfWork,
  row: SubscriptionRow,
  fresh: readonly ProposedLine[],
  pending: { ids: readonly string[]; lines: readonly ProposedLine[] },
  options: { now: Date; documents: IssuedDocuments },
): Promise<void> {
  const { tx, actor: scope } = uow;
  await insertPendingLines(tx, scope, row.id, pendingRows(fresh.filter((l) => l.amount >= 0)));
  const pendingCredits = pending.ids.filter((_, i) => pending.lines[i]!.amount < 0);
  await deletePendingLines(tx, scope, row.id, pendingCredits);
  const credits = [...fresh, ...pending.lines].filter((l) => l.amount < 0);
  const today = utcDateOf(options.now);
  for (const [invoiceId, group] of await creditsByInvoice(uow, row, credits)) {
    const lines = group.lines.map(({ line }) => invoiceLine(line, row.time_zone));
    if (group.status === 'draft') {
      const draft = await getInvoice(tx, scope, invoiceId, today);
      const all = [
        ...draft.lines.map((l) => ({ amount: l.amount, taxRates: l.taxRates })),
        ...lines,
      ];
      if (linesBelowZero(all, draft.defaultTaxRates)) {
        // More credit than the draft bills: it waits for the next invoice.
        const kept = group.lines.map(({ line }) => line);
        await insertPendingLines(tx, scope, row.id, pendingRows(kept));
      } else {
        await addSubscriptionLines(uow, invoiceId, lines, options.now);
      }
      continue;
    }
    if (group.status !== 'open' && group.status !== 'paid') continue;
    const invoice = await getInvoice(tx, scope, invoiceId, today);
    await creditNoteInWork(
      uow,
      options.documents,
      today,
      {
        invoiceId,
        reason: 'order_change',
        memo: 'Credit for the unused time of a subscription change.',
        lines: group.lines.map(({ line, invoiceLineId }) => ({
          description: line.description,
          amount: grossOnLine(invoice, invoiceLineId, -line.amount),
          invoiceLineId,
        })),
      },
      true,
    );
  }
}
