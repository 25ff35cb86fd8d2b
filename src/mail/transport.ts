// How messages leave: with SMTP_URL, to that server; without it (local development), as .eml
// files in DATA_DIR/outbox/, so sending works out of the box and a message can be opened in
// any mail program. Either way through nodemailer, which the first message loads (some 40
// modules that a process sending no mail, such as a test's server, need not load at start).
import { systemClock, type Clock } from '../clock.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SendMailOptions, Transporter } from 'nodemailer';
import type { Config } from '../config.ts';

export interface OutgoingMail {
  messageId: string;
  to: string;
  replyTo: string | null;
  subject: string;
  text: string;
  attachments: { filename: string; content: Buffer; contentType: string }[];
}

export interface MailTransport {
  /** Resolves once the server accepted the message (or it was written); else throws. */
  send(mail: OutgoingMail): Promise<void>;
}

/** A refusal the server meant for good (5xx): retrying will not help. */
export function isPermanentFailure(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500;
}

function message(from: string, mail: OutgoingMail): SendMailOptions {
  return {
    from,
    to: mail.to,
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    text: mail.text,
    messageId: mail.messageId,
    attachments: mail.attachments,
  };
}

/** The transport `make` builds, made at the first call with nodemailer loaded then. */
function loaded(
  make: (nodemailer: (typeof import('nodemailer'))['default']) => Transporter,
): () => Promise<Transporter> {
  let transport: Promise<Transporter> | undefined;
  return () => (transport ??= import('nodemailer').then((m) => make(m.default)));
}

export function createMailTransport(
  config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>,
  log: (message: string) => void,
  clock: Clock = systemClock,
): MailTransport {
  if (config.smtpUrl) {
    // Short timeouts: a worker's lease on the message outlasts them (src/mail/worker.ts).
    const smtpUrl = config.smtpUrl;
    const transport = loaded((nodemailer) =>
      nodemailer.createTransport({
        url: smtpUrl,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      }),
    );
    return {
      async send(mail) {
        await (await transport()).sendMail(message(config.mailFrom, mail));
      },
    };
  }
  const transport = loaded((nodemailer) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true }),
  );
  const outbox = path.join(config.dataDir, 'outbox');
  return {
    async send(mail) {
      const info = await (await transport()).sendMail(message(config.mailFrom, mail));
      await mkdir(outbox, { recursive: true });
      const stamp = clock.now().toISOString().replace(/[:.]/g, '-');
      const base = (mail.attachments[0]?.filename ?? 'message')
        .replace(/\.pdf$/, '')
        .replace(/[^A-Za-z0-9._-]/g, '_');
      const file = path.join(outbox, `${stamp}-${base}.eml`);
      await writeFile(file, info.message as Buffer);
      log(`SMTP_URL is not set: the e-mail was written to ${file}`);
    },
  };
}
