// Dunning (API.md part C): invoice.overdue once per invoice, and one reminder e-mail per step of
// the tenant's schedule, in the customer's language, with the PDF; invoice.reminder_sent when
// the mail server accepted it. The job takes the day as a parameter: the test is the clock,
// and runs two workers (two pools, as two processes would) at the same time.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { Db } from '../../src/db/pool.ts';
import { createRenderPool } from '../../src/documents/render-pool.ts';
import { createIssuedDocuments } from '../../src/documents/service.ts';
import type { MailWorker } from '../../src/mail/worker.ts';
import { runDunning } from '../../src/dunning/service.ts';
import { startSmtp } from '../mail/smtp.ts';
import { testMailWorker } from '../mail/workers.ts';
import { testPool, waitFor } from '../helpers.ts';
import {
  createCustomer,
  issuedInvoice,
  pay,
  startInvoiceApp,
  tenantApi,
  type Api,
} from '../payments/fixtures.ts';

const smtp = await startSmtp();
// The API's instance runs no worker: the test runs the jobs itself.
const server = await startInvoiceApp({ runWorker: false, smtpUrl: smtp.url });

/** Another worker process's connections. */
function workerPool(): Db {
  const pool = testPool(server.databaseUrl, 4);
  after(() => pool.end());
  return pool;
}
const workers = [workerPool(), workerPool()];

/** Both workers run the job for `today` at the same time, `times` times over. */
async function dunBoth(today: string, times = 1) {
  for (let i = 0; i < times; i++) await Promise.all(workers.map((db) => runDunning(db, today)));
}

async function events(tenantId: string, type: string) {
  const { rows } = await server.db.query(
    `SELECT object_id, data FROM events WHERE tenant_id = $1 AND type = $2 ORDER BY created_at, id`,
    [tenantId, type],
  );
  return rows as { object_id: string; data: any }[];
}

async function invoiceDue(api: Api, customerId: string, dueDate: string) {
  return issuedInvoice(api, { customerId, dueDate });
}

describe('overdue invoices', () => {
  it('records invoice.overdue once for each open invoice past its due date', async () => {
    const { api, key } = await tenantApi(server);
    const customer = await createCustomer(api);
    const due = await Promise.all(
      Array.from({ length: 12 }, () => invoiceDue(api, customer.id, '2030-01-10')),
    );
    const later = await invoiceDue(api, customer.id, '2030-01-20');
    const paid = await invoiceDue(api, customer.id, '2030-01-10');
    await pay(api, paid.id, { amount: paid.amountRemaining });
    const written = await invoiceDue(api, customer.id, '2030-01-10');
    await api.post(`/v1/invoices/${written.id}/mark-uncollectible`);
    await api.post('/v1/invoices', {
      customerId: customer.id,
      currency: 'eur',
      dueDate: '2030-01-01',
    });

    await dunBoth('2030-01-10');
    assert.equal(
      (await events(key.tenantId, 'invoice.overdue')).length,
      0,
      'due today is not late',
    );

    await dunBoth('2030-01-11', 3);
    const overdue = await events(key.tenantId, 'invoice.overdue');
    assert.deepEqual(overdue.map((e) => e.object_id).sort(), due.map((i) => i.id).sort());
    for (const event of overdue) {
      assert.equal(event.data.object.overdue, true);
      assert.equal(event.data.object.status, 'open');
    }

    await dunBoth('2030-01-21', 2);
    const all = await events(key.tenantId, 'invoice.overdue');
    assert.equal(all.length, 13);
    assert.equal(all.at(-1)!.object_id, later.id);
  });
});

describe('reminders', () => {
  it('e-mails each step once, in the customer’s language, with the PDF, and records it when sent', async () => {
    const { api, key } = await tenantApi(server);
    await api.patch('/v1/settings', { reminders: [3, 14, 30] });
    const ada = await createCustomer(api, { name: 'Ada', email: 'ada@reminders.test' });
    const bea = await createCustomer(api, { name: 'Bea', email: 'bea@reminders.test' });
    await server.db.query(`UPDATE customers SET locale = 'de-AT' WHERE id = $1`, [bea.id]);
    const nobody = await createCustomer(api, { name: 'No Mail' });
    assert.equal((await api.patch(`/v1/customers/${nobody.id}`, { email: null })).status, 200);
    const toAda = await invoiceDue(api, ada.id, '2031-03-01');
    const toBea = await invoiceDue(api, bea.id, '2031-03-01');
    const toNobody = await invoiceDue(api, nobody.id, '2031-03-01');
    const settled = await invoiceDue(api, ada.id, '2031-03-01');
    await pay(api, settled.id, { amount: settled.amountRemaining });

    await dunBoth('2031-03-03');
    assert.equal(await queuedReminders(key.tenantId), 0, 'two days late is before the first step');
    await dunBoth('2031-03-04', 3);
    assert.equal(await queuedReminders(key.tenantId), 2);

    const mailWorkers = [startMailWorker(workers[0]!), startMailWorker(workers[1]!)];
    await waitFor(
      async () => (await events(key.tenantId, 'invoice.reminder_sent')).length === 2,
      'sent',
    );
    const toAdaMail = await mailTo('ada@reminders.test');
    const toBeaMail = await mailTo('bea@reminders.test');
    assert.equal(toAdaMail.length, 1);
    assert.equal(toBeaMail.length, 1);
    assert.equal(toAdaMail[0]!.subject, `Reminder: invoice ${toAda.number} is overdue`);
    assert.match(toAdaMail[0]!.text!, /is overdue by 3 days/);
    assert.match(toAdaMail[0]!.text!, /invoice \S+ of .+ for €100\.00 was due/);
    assert.match(toAdaMail[0]!.text!, /Amount still due: €100\.00\./);
    assert.equal(
      toBeaMail[0]!.subject,
      `Zahlungserinnerung: Rechnung ${toBea.number} ist überfällig`,
    );
    assert.match(toBeaMail[0]!.text!, /seit 3 Tagen überfällig/);
    for (const [mail, invoice] of [
      [toAdaMail[0]!, toAda],
      [toBeaMail[0]!, toBea],
    ] as const) {
      assert.equal(mail.attachments.length, 1);
      assert.equal(mail.attachments[0]!.contentType, 'application/pdf');
      assert.equal(mail.attachments[0]!.filename, `${invoice.number}.pdf`);
      assert.equal(mail.attachments[0]!.content.subarray(0, 5).toString(), '%PDF-');
    }
    const sent = await events(key.tenantId, 'invoice.reminder_sent');
    assert.deepEqual(sent.map((e) => e.object_id).sort(), [toAda.id, toBea.id].sort());
    for (const event of sent) assert.deepEqual(event.data.reminder, { daysAfterDue: 3 });

    // Bea pays; 45 days late the latest step reached is 30, and 14 is not sent as well.
    await pay(api, toBea.id, { amount: toBea.amountRemaining });
    await dunBoth('2031-04-15', 2);
    await waitFor(
      async () => (await events(key.tenantId, 'invoice.reminder_sent')).length === 3,
      'sent',
    );
    await Promise.all(mailWorkers.map((w) => w.stop()));
    assert.equal((await mailTo('ada@reminders.test')).length, 2);
    assert.equal((await mailTo('bea@reminders.test')).length, 1);
    assert.match((await mailTo('ada@reminders.test'))[1]!.text!, /is overdue by 45 days/);
    const { rows } = await server.db.query(
      `SELECT invoice_id, days, status FROM invoice_reminders WHERE tenant_id = $1
        ORDER BY invoice_id, days`,
      [key.tenantId],
    );
    const steps = (id: string) =>
      rows.filter((r) => r.invoice_id === id).map((r) => [r.days, r.status]);
    assert.deepEqual(steps(toAda.id), [
      [3, 'sent'],
      [30, 'sent'],
    ]);
    assert.deepEqual(steps(toBea.id), [[3, 'sent']]);
    assert.deepEqual(steps(toNobody.id), [
      [3, 'skipped'],
      [30, 'skipped'],
    ]);
    assert.deepEqual(steps(settled.id), []);
  });

  it('states the total, names the credit notes (attached) and payments that changed what is due, and what still is', async () => {
    const { api, key } = await tenantApi(server);
    await api.patch('/v1/settings', { reminders: [3] });
    const cleo = await createCustomer(api, { name: 'Cleo', email: 'cleo@reminders.test' });
    const invoice = await invoiceDue(api, cleo.id, '2031-05-01');
    const note = await api.post('/v1/credit-notes', { invoiceId: invoice.id, amount: 1999 });
    assert.equal(note.status, 201, note.text);
    await pay(api, invoice.id, { amount: 3000 });

    await dunBoth('2031-05-04');
    const mailWorker = startMailWorker(workers[0]!);
    await waitFor(
      async () => (await events(key.tenantId, 'invoice.reminder_sent')).length === 1,
      'sent',
    );
    await mailWorker.stop();
    const [mail] = await mailTo('cleo@reminders.test');
    const text = mail!.text!;
    // The total as the attached invoice prints it; then the credit note, the payment, what is due.
    assert.match(text, new RegExp(`invoice ${invoice.number} of .+ for €100\\.00 was due`));
    assert.match(text, new RegExp(`Credit note ${note.body.number} \\(€19\\.99\\)`));
    assert.match(text, /Payments received: €30\.00 on /);
    assert.match(text, /Amount still due: €50\.01\./);
    assert.ok(
      text.indexOf('Amount still due') < text.indexOf('If you have already paid'),
      'what is due comes before the closing lines',
    );
    assert.match(text, /please disregard this reminder\.\n\nKind regards,\n.+\s*$/);
    assert.deepEqual(
      mail!.attachments.map((a) => a.filename),
      [`${invoice.number}.pdf`, `${note.body.number}.pdf`],
    );
    const notePdf = await fetch(`${server.url}/v1/credit-notes/${note.body.id}/pdf`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    assert.deepEqual(mail!.attachments[1]!.content, Buffer.from(await notePdf.arrayBuffer()));
  });
});

async function queuedReminders(tenantId: string): Promise<number> {
  const { rows } = await server.db.query(
    `SELECT count(*)::int AS n FROM mail_outbox WHERE tenant_id = $1 AND kind = 'reminder'`,
    [tenantId],
  );
  return rows[0].n;
}

const renderer = createRenderPool();
after(() => renderer.close());
const documents = createIssuedDocuments({ renderer, clock: server.clock });

function startMailWorker(db: Db): MailWorker {
  const worker = testMailWorker(db, server, smtp, documents);
  worker.start();
  return worker;
}

/** Every message accepted for this address (offered twice counts twice), parsed. */
async function mailTo(address: string): Promise<ParsedMail[]> {
  const raw = smtp.deliveries.filter((d) => d.to.includes(address)).map((d) => d.raw);
  return Promise.all(raw.map((r) => simpleParser(r)));
}
