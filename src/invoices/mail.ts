// E-mail of invoices. With SMTP_URL the message goes to that server; without it (local
// development) it is written as an .eml file into <DATA_DIR>/outbox/ and the path is logged,
// so `send` works out of the box and the message can be opened in any mail program.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type { Config } from '../config.ts';

export interface InvoiceMail {
  to: string;
  replyTo: string | null;
  subject: string;
  text: string;
  attachment: { filename: string; content: Buffer };
}

export interface InvoiceMailer {
  /** Resolves once the SMTP server accepted the message (or it was written); else throws. */
  send(mail: InvoiceMail): Promise<void>;
}

function message(from: string, mail: InvoiceMail): SendMailOptions {
  return {
    from,
    to: mail.to,
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    text: mail.text,
    attachments: [
      {
        filename: mail.attachment.filename,
        content: mail.attachment.content,
        contentType: 'application/pdf',
      },
    ],
  };
}

export function createInvoiceMailer(
  config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>,
  log: (message: string) => void,
): InvoiceMailer {
  if (config.smtpUrl) {
    // Short timeouts: the send runs while a request waits (see lifecycle.ts).
    const transport = nodemailer.createTransport({
      url: config.smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
    return {
      async send(mail) {
        await transport.sendMail(message(config.mailFrom, mail));
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  const outbox = path.join(config.dataDir, 'outbox');
  return {
    async send(mail) {
      const info = await transport.sendMail(message(config.mailFrom, mail));
      await mkdir(outbox, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const base = mail.attachment.filename.replace(/\.pdf$/, '').replace(/[^A-Za-z0-9._-]/g, '_');
      const name = `${stamp}-${base}.eml`;
      const file = path.join(outbox, name);
      await writeFile(file, info.message as Buffer);
      log(`SMTP_URL is not set: the invoice e-mail was written to ${file}`);
    },
  };
}
