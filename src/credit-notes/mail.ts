// A credit note's e-mail: queued with its PDF to the customer, like an invoice's, through the
// issued-document service (src/documents/mail.ts); credit_note.sent once the mail server
// accepted it.
import { todayUtcOf, type Clock } from '../clock.ts';
import { getCustomerRow } from '../customers/service.ts';
import type { Db } from '../db/pool.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { formatAmount, resolveLocale, t } from '../documents/i18n.ts';
import type { DocumentMail, IssuedDocuments } from '../documents/service.ts';
import { StateInvalidError } from '../errors.ts';
import { getInvoice } from '../invoices/service.ts';
import type { MailKind } from '../mail/outbox.ts';
import { getTenant } from '../tenants/service.ts';
import { issuedCreditNote } from './documents.ts';
import { creditNoteFromRow, loadCreditNoteRow } from './model.ts';
import type { CreditNote } from './schemas.ts';
import { selectCreditNoteLines, updateCreditNoteEmail, type CreditNoteRow } from './store.ts';

export const CREDIT_NOTE_MAIL = 'credit_note';

const CREDIT_NOTE_EMAIL: DocumentMail<CreditNoteRow> = {
  kind: CREDIT_NOTE_MAIL,
  updateEmail: updateCreditNoteEmail,
  sentEvent: 'credit_note.sent',
  asSent: async (tx, scope, row) =>
    creditNoteFromRow(row, await selectCreditNoteLines(tx, scope, [row.id])),
};

/** Queues the credit note's e-mail with its PDF to the customer (see sendInvoice). */
export function sendCreditNote(
  db: Db,
  clock: Clock,
  documents: IssuedDocuments,
  request: WriteRequest,
  id: string,
): Promise<Written<CreditNote>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await loadCreditNoteRow(tx, scope, id, { forUpdate: true });
    if (row.status === 'void') throw new StateInvalidError('A void credit note is not sent.');
    const customer = await getCustomerRow(tx, scope, row.customer_id);
    const invoice = await getInvoice(tx, scope, row.invoice_id, todayUtcOf(clock));
    const locale = resolveLocale(invoice.customer?.locale);
    const values = {
      number: row.number,
      invoiceNumber: invoice.number!,
      seller: row.seller_snapshot?.name ?? (await getTenant(tx, scope.tenantId)).name,
      customer: customer.name ?? '',
      amount: formatAmount(row.total, row.currency, locale),
    };
    const queued = await documents.queueMail(uow, CREDIT_NOTE_EMAIL, customer, {
      subjectId: id,
      replyTo: row.seller_snapshot?.email ?? null,
      subject: t(locale, 'email.creditNote.subject', values),
      body: t(locale, 'email.creditNote.body', values),
    });
    return creditNoteFromRow(queued, await selectCreditNoteLines(tx, scope, [id]));
  });
}

export function creditNoteMail(documents: IssuedDocuments): MailKind {
  return documents.mailKind(CREDIT_NOTE_EMAIL, {
    pdfs: async (db, scope, id) => [
      await documents.pdf(db, scope, await issuedCreditNote(db, scope, id)),
    ],
  });
}
