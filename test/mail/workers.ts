// A mail worker as another instance of the server runs it, for the tests that send mail: the
// e-mails the server sends, by kind (createMailKinds, the composition root's), over a test's
// SMTP server, with the documents of the test's own render pool. Stopped when the file's
// tests end (stopping twice is harmless).
import { after } from 'node:test';
import type { Clock } from '../../src/clock.ts';
import { createMailKinds } from '../../src/composition.ts';
import type { Db } from '../../src/db/pool.ts';
import type { IssuedDocuments } from '../../src/documents/service.ts';
import type { HostedLinks } from '../../src/hosted/links.ts';
import { createMailTransport } from '../../src/mail/transport.ts';
import { MailWorker, type MailWorkerOptions } from '../../src/mail/worker.ts';
import type { TestSmtp } from './smtp.ts';

/** A mail worker on `db`, not started; it polls every 50 ms unless `options` say otherwise. */
export function testMailWorker(
  db: Db,
  server: { links: HostedLinks; clock: Clock },
  smtp: TestSmtp,
  documents: IssuedDocuments,
  options: Pick<MailWorkerOptions, 'pollMs' | 'retrySeconds'> = {},
): MailWorker {
  const worker = new MailWorker(db, {
    transport: createMailTransport(
      { smtpUrl: smtp.url, mailFrom: 'billing@acme.test', dataDir: '.' },
      () => undefined,
    ),
    kinds: createMailKinds({ documents, links: server.links, clock: server.clock }),
    pollMs: 50,
    ...options,
  });
  after(() => worker.stop());
  return worker;
}
