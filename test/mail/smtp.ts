// A real SMTP server for the tests, in this process. Every message it accepts is a delivery;
// the mailbox holds each Message-ID once, as a recipient's mail system does with a message
// offered twice. It can refuse the next messages with a code (4xx: try later; 5xx: for good).
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { SMTPServer } from 'smtp-server';

export interface Delivery {
  from: string;
  to: string[];
  raw: string;
  messageId: string;
}

export interface TestSmtp {
  url: string;
  /** Every message accepted, in order (a message offered twice is here twice). */
  deliveries: Delivery[];
  /** Accepted messages by Message-ID: what the recipient sees. */
  mailbox: Map<string, Delivery>;
  /** Refuse the next messages, one code each (e.g. 451, 550). */
  refuse(...codes: number[]): void;
  /** Called as each accepted message is acknowledged (after the 250 reply is sent). */
  onAccepted: ((delivery: Delivery) => void) | undefined;
}

export async function startSmtp(): Promise<TestSmtp> {
  const refusals: number[] = [];
  const state: TestSmtp = {
    url: '',
    deliveries: [],
    mailbox: new Map(),
    refuse: (...codes) => refusals.push(...codes),
    onAccepted: undefined,
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const code = refusals.shift();
        if (code !== undefined) {
          const error = Object.assign(new Error(`${code} refused by the test server`), {
            responseCode: code,
          });
          return callback(error);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const delivery: Delivery = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          messageId: /^Message-ID: (.+)$/im.exec(raw)?.[1]?.trim() ?? '',
        };
        state.deliveries.push(delivery);
        if (!state.mailbox.has(delivery.messageId)) state.mailbox.set(delivery.messageId, delivery);
        callback();
        state.onAccepted?.(delivery);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  state.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return state;
}
