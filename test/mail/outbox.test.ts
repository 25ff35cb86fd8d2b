// The mail outbox (API.md part C): messages are written with the request, sent by workers
// outside any transaction, retried with back-off while the server refuses, and a message the
// server accepted is not delivered twice, even when a worker dies before recording it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { createRenderPool } from '../../src/documents/render-pool.ts';
import { createIssuedDocuments } from '../../src/documents/service.ts';
import type { MailWorker } from '../../src/mail/worker.ts';
import { databaseEnv, testPool, waitFor } from '../helpers.ts';
import {
  createCustomer,
  createInvoice,
  startInvoiceApp,
  tenantApi,
  type Api,
} from '../invoices/fixtures.ts';
import { startSmtp } from './smtp.ts';
import { testMailWorker } from './workers.ts';

const smtp = await startSmtp();
// The API's own instance runs no worker: each test starts the workers it needs.
const server = await startInvoiceApp({ runWorker: false, smtpUrl: smtp.url });
const { api, key } = await tenantApi(server);

const renderer = createRenderPool();
after(() => renderer.close());
const documents = createIssuedDocuments({ renderer, clock: server.clock });

/** A worker as another instance runs it, with its own pool and a short back-off. */
function startWorker(): MailWorker {
  const pool = testPool(server.databaseUrl, 4);
  after(() => pool.end());
  const worker = testMailWorker(pool, server, smtp, documents, { retrySeconds: [0.2, 0.2, 0.2] });
  worker.start();
  return worker;
}

async function sentInvoice(client: Api = api) {
  const customer = await createCustomer(client, { email: `${Math.random()}@example.com` });
  const draft = await createInvoice(client, {
    customerId: customer.id,
    lines: [{ description: 'Consulting', unitAmount: 50000 }],
  });
  assert.equal((await client.post(`/v1/invoices/${draft.id}/issue`)).status, 200);
  const sent = await client.post(`/v1/invoices/${draft.id}/send`);
  assert.equal(sent.status, 200, sent.text);
  return sent.body;
}

const invoiceOf = async (id: string) => (await api.get(`/v1/invoices/${id}`)).body;

async function sentEvents(invoiceId: string): Promise<number> {
  const { rows } = await server.db.query(
    `SELECT count(*)::int AS n FROM events WHERE tenant_id = $1 AND object_id = $2 AND type = 'invoice.sent'`,
    [key.tenantId, invoiceId],
  );
  return rows[0].n;
}

async function queued(): Promise<number> {
  const { rows } = await server.db.query(
    `SELECT count(*)::int AS n FROM mail_outbox WHERE status = 'queued'`,
  );
  return rows[0].n;
}

const deliveriesTo = (to: string) => smtp.deliveries.filter((d) => d.to.includes(to));

describe('mail outbox', () => {
  it('queues the message with the request and sends nothing while no worker runs', async () => {
    const invoice = await sentInvoice();
    const { rows } = await server.db.query(
      `SELECT status, attempts, recipient FROM mail_outbox WHERE subject_id = $1`,
      [invoice.id],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, 'queued');
    assert.equal(rows[0].attempts, 0);
    assert.equal(deliveriesTo(rows[0].recipient).length, 0);
    assert.equal(invoice.email.status, 'queued');
  });

  it('retries while the server refuses, then sends once, with sentAt and one invoice.sent', async () => {
    const worker = startWorker();
    await waitFor(async () => (await queued()) === 0, 'the queue drained');
    smtp.refuse(451, 451);
    const invoice = await sentInvoice();
    await waitFor(async () => (await invoiceOf(invoice.id)).email.status === 'sent', 'sent');
    await worker.stop();
    const after = await invoiceOf(invoice.id);
    assert.equal(after.email.attempts, 3);
    assert.ok(after.sentAt);
    const to = after.customer.email;
    assert.equal(deliveriesTo(to).length, 1);
    assert.equal(await sentEvents(invoice.id), 1);
  });

  it('shows the last refusal while it retries, and fails for good on a permanent one', async () => {
    const worker = startWorker();
    await waitFor(async () => (await queued()) === 0, 'the queue drained');
    smtp.refuse(550);
    const invoice = await sentInvoice();
    await waitFor(async () => (await invoiceOf(invoice.id)).email.status === 'failed', 'failed');
    await worker.stop();
    const after = await invoiceOf(invoice.id);
    assert.equal(after.email.attempts, 1);
    assert.match(after.email.lastError, /550/);
    assert.equal(after.sentAt, null);
    assert.equal(await sentEvents(invoice.id), 0);
  });

  it('sends each message once with two workers on one queue', async () => {
    const invoices = [];
    for (let i = 0; i < 12; i++) invoices.push(await sentInvoice());
    const workers = [startWorker(), startWorker()];
    for (const invoice of invoices) {
      await waitFor(async () => (await invoiceOf(invoice.id)).email.status === 'sent', 'sent');
    }
    await Promise.all(workers.map((w) => w.stop()));
    for (const invoice of invoices) {
      const to = (await invoiceOf(invoice.id)).customer.email;
      assert.equal(deliveriesTo(to).length, 1, to);
      assert.equal(await sentEvents(invoice.id), 1);
    }
  });

  it('delivers once when a worker dies between the hand-over and its record', async () => {
    const invoice = await sentInvoice();
    const to = (await invoiceOf(invoice.id)).customer.email;
    // `billing worker` as a process of its own, killed the moment the server accepts.
    const child = spawn(process.execPath, [path.resolve('bin/billing.js'), 'worker'], {
      env: { ...process.env, ...databaseEnv(server.databaseUrl), SMTP_URL: smtp.url },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    smtp.onAccepted = (delivery) => {
      if (delivery.to.includes(to)) child.kill('SIGKILL');
    };
    await exited;
    smtp.onAccepted = undefined;
    assert.equal(deliveriesTo(to).length, 1);
    const { rows } = await server.db.query(
      `SELECT status, attempts, handed_over_at FROM mail_outbox WHERE subject_id = $1`,
      [invoice.id],
    );
    assert.equal(rows[0].status, 'queued', 'the worker died before recording the hand-over');
    assert.ok(rows[0].handed_over_at, 'the attempt was recorded before the hand-over');
    // The lease lapses (the test moves the clock instead of waiting a minute).
    await server.db.query(`UPDATE mail_outbox SET next_attempt_at = now() WHERE subject_id = $1`, [
      invoice.id,
    ]);
    const worker = startWorker();
    await waitFor(async () => (await invoiceOf(invoice.id)).email.status === 'sent', 'sent');
    await worker.stop();
    // Offered twice, with one Message-ID: the recipient's mailbox has it once.
    const offered = deliveriesTo(to);
    assert.equal(offered.length, 2);
    assert.equal(offered[0]!.messageId, offered[1]!.messageId);
    assert.equal([...smtp.mailbox.values()].filter((d) => d.to.includes(to)).length, 1);
    assert.equal(await sentEvents(invoice.id), 1);
  });
});
