// The invoice e-mail as a kind of the mail outbox (src/mail/): its attachment is the invoice's
// stored PDF, and its outcome is the invoice's `email`, with sentAt and invoice.sent once the
// mail server accepted it.
import type { RenderPool } from '../documents/render-pool.ts';
import type { MailKind } from '../mail/outbox.ts';
import { operator } from '../tenancy.ts';
import { getInvoicePdf } from './documents.ts';
import { invoiceFromRow } from './model.ts';
import { selectLines, updateInvoiceEmail } from './store.ts';

export const INVOICE_MAIL = 'invoice';

export function invoiceMail(renderer: RenderPool): MailKind {
  return {
    async attachments(db, mail) {
      const scope = operator(mail.tenant_id, mail.environment);
      const { filename, pdf } = await getInvoicePdf(db, renderer, scope, mail.subject_id);
      return [{ filename, content: pdf }];
    },

    async recordOutcome(uow, mail) {
      const { tx, actor: scope } = uow;
      const row = await updateInvoiceEmail(tx, scope, mail.subject_id, {
        status: mail.status,
        attempts: mail.attempts,
        lastError: mail.last_error,
      });
      if (mail.status === 'sent') {
        uow.event('invoice.sent', invoiceFromRow(row, await selectLines(tx, scope, [row.id])));
      }
    },
  };
}
