// The invitation e-mail, through the mail outbox (src/mail/): queued with the invitation, sent
// by the worker. The link is a credential, so the outbox stores the message without it; it is
// derived again from the invitation's id when the message is sent.
import type { DocumentLocale } from '../documents/model.ts';
import { t } from '../documents/i18n.ts';
import type { MailKind } from '../mail/outbox.ts';

export const INVITATION_MAIL = 'console_invitation';
const LINK = '\u2063link\u2063';

export function invitationMessage(
  locale: DocumentLocale,
  tenant: string,
): { subject: string; body: string } {
  return {
    subject: t(locale, 'console.invitation.mailSubject', { tenant }),
    body: t(locale, 'console.invitation.mailBody', { tenant, link: LINK, hours: 72 }),
  };
}

export function invitationMail(
  invitationUrl: (tenantId: string, invitationId: string) => string,
): MailKind {
  return {
    text: (_db, mail) =>
      Promise.resolve(mail.body.replace(LINK, invitationUrl(mail.tenant_id, mail.subject_id))),
    attachments: () => Promise.resolve([]),
    recordOutcome: () => Promise.resolve(),
  };
}
