// The invoice e-mail as a kind of the mail outbox (src/mail/): its attachment is the invoice's
// stored PDF, its text ends with the link to the hosted page, and its outcome is the invoice's
// `email`, with sentAt and invoice.sent once the mail server accepted it.
import { resolveLocale, t } from '../documents/i18n.ts';
import type { RenderPool } from '../documents/render-pool.ts';
import type { HostedLinks } from '../hosted/links.ts';
import type { MailKind } from '../mail/outbox.ts';
import { operator } from '../tenancy.ts';
import { getInvoicePdf } from './documents.ts';
import { invoiceFromRow, loadInvoiceRow } from './model.ts';
import { selectLines, updateInvoiceEmail } from './store.ts';

export const INVOICE_MAIL = 'invoice';

export function invoiceMail(renderer: RenderPool, links: HostedLinks): MailKind {
  return {
    // The link is added as the message is sent, never stored in the outbox: it is a capability
    // URL, and no secret is kept in clear (API.md part C). A link replaced since the message
    // was queued is sent as it is now; an invoice without a working link gets none.
    async text(db, mail) {
      const scope = operator(mail.tenant_id, mail.environment);
      const url = (await links.urls(db, scope, [mail.subject_id])).get(mail.subject_id);
      if (url === undefined) return mail.body;
      const row = await loadInvoiceRow(db, scope, mail.subject_id);
      const locale = resolveLocale(row.customer_snapshot?.locale);
      return `${mail.body}\n\n${t(locale, 'email.payOnline', { url })}`;
    },

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
