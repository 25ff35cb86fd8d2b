import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { extractText } from 'unpdf';
import { formatDate } from '../../src/documents/i18n.ts';
import { client, createTenantWithKey, setSettings, waitFor } from '../helpers.ts';
import { startSmtp } from '../mail/smtp.ts';
import {
  assertError,
  createCustomer,
  createInvoice,
  startInvoiceApp,
  tempDir,
  tenantApi,
  type Api,
} from './fixtures.ts';

const smtp = await startSmtp();
const inbox = smtp.deliveries;
const server = await startInvoiceApp({ smtpUrl: smtp.url, mailFrom: 'billing@acme.test' });
const { api, key } = await tenantApi(server);
await setSettings(server.db, key.tenantId, {
  legalName: 'ACME Widgets GmbH',
  taxId: 'DE999999999',
  email: 'accounts@acme.test',
  address: { line1: 'Hauptstrasse 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
});

/** The PDF attached to a raw MIME message (base64 part of type application/pdf). */
function pdfAttachment(raw: string): Buffer | null {
  const match = /Content-Type: application\/pdf[^]*?\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(raw);
  return match ? Buffer.from(match[1]!.replace(/\s/g, ''), 'base64') : null;
}

async function pdfText(pdf: Buffer | Uint8Array): Promise<string> {
  const { text } = await extractText(new Uint8Array(pdf), { mergePages: true });
  return text;
}

async function openInvoice(client: Api, customerBody: Record<string, unknown> = {}) {
  const customer = await createCustomer(client, customerBody);
  const invoice = await createInvoice(client, {
    customerId: customer.id,
    lines: [
      { description: 'Analytical engine maintenance', quantity: 2, unitAmount: 12500 },
      { description: 'Punch cards', quantity: 100, unitAmount: 15 },
    ],
    memo: 'Payable within 30 days.',
  });
  const issued = await client.post(`/v1/invoices/${invoice.id}/issue`);
  assert.equal(issued.status, 200, issued.text);
  return { customer, invoice: issued.body };
}

/** Waits until the invoice's e-mail has the status, and returns the invoice. */
async function emailSettled(client: Api, id: string, status = 'sent') {
  let invoice: any;
  await waitFor(async () => {
    invoice = (await client.get(`/v1/invoices/${id}`)).body;
    return invoice.email?.status === status;
  }, `e-mail ${status}`);
  return invoice;
}

describe('sending invoices', () => {
  it('e-mails the customer the invoice with its PDF attached, and sets sentAt', async () => {
    const { invoice } = await openInvoice(api, { email: 'ada@example.com' });
    const before = inbox.length;
    const sent = await api.post(`/v1/invoices/${invoice.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.status, 'open');
    assert.deepEqual(sent.body.email, { status: 'queued', attempts: 0, lastError: null });
    assert.equal(sent.body.sentAt, null, 'sent only once the mail server accepted it');
    const settled = await emailSettled(api, invoice.id);
    assert.ok(settled.sentAt);
    assert.equal(settled.email.attempts, 1);
    assert.equal(inbox.length, before + 1);
    const message = inbox[inbox.length - 1]!;
    assert.deepEqual(message.to, ['ada@example.com']);
    assert.equal(message.from, 'billing@acme.test');
    assert.match(
      message.raw,
      new RegExp(`Subject: Invoice ${invoice.number} from ACME Widgets GmbH`),
    );
    assert.match(message.raw, /Reply-To: accounts@acme\.test/);
    assert.match(message.raw, new RegExp(`filename=${invoice.number}\\.pdf`));
    const pdf = pdfAttachment(message.raw);
    assert.ok(pdf, 'the message has a PDF attachment');
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    const text = await pdfText(pdf);
    assert.match(text, new RegExp(invoice.number));
    assert.match(text, /€265\.00/);
    const events = await server.db.query(
      `SELECT type FROM events WHERE tenant_id = $1 AND object_id = $2 AND type = 'invoice.sent'`,
      [key.tenantId, invoice.id],
    );
    assert.equal(events.rowCount, 1);
  });

  it('sends to the customer address as it is now', async () => {
    const { customer, invoice } = await openInvoice(api, { email: 'typo@exmaple.com' });
    await api.patch(`/v1/customers/${customer.id}`, { email: 'fixed@example.com' });
    const sent = await api.post(`/v1/invoices/${invoice.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    await emailSettled(api, invoice.id);
    assert.deepEqual(inbox[inbox.length - 1]!.to, ['fixed@example.com']);
    assert.equal(sent.body.customer.email, 'typo@exmaple.com', 'the frozen snapshot stays');
  });

  it('refuses a customer without e-mail with parameter_missing customer.email', async () => {
    const customer = await api.post('/v1/customers', { name: 'No Mail' });
    const invoice = await createInvoice(api, {
      customerId: customer.body.id,
      lines: [{ description: 'x', unitAmount: 100 }],
    });
    await api.post(`/v1/invoices/${invoice.id}/issue`);
    const before = inbox.length;
    assertError(
      await api.post(`/v1/invoices/${invoice.id}/send`),
      400,
      'parameter_missing',
      'customer.email',
    );
    assert.equal(inbox.length, before);
    assert.equal((await api.get(`/v1/invoices/${invoice.id}`)).body.sentAt, null);
  });

  it('refuses drafts', async () => {
    const draft = await createInvoice(api, {
      customerId: (await createCustomer(api)).id,
      lines: [{ description: 'x', unitAmount: 1 }],
    });
    assertError(await api.post(`/v1/invoices/${draft.id}/send`), 409, 'state_invalid');
  });

  it('writes the message into DATA_DIR/outbox when no SMTP_URL is set', async () => {
    const dataDir = await tempDir();
    const logs: string[] = [];
    // A database of its own: the instances above would take its message to their SMTP server.
    const quiet = await startInvoiceApp({ runWorker: false, smtpUrl: undefined });
    const local = await quiet.start(
      { dataDir, logLevel: 'info', runWorker: true },
      { write: (line) => void logs.push(line) },
    );
    const k = await createTenantWithKey(quiet.db);
    const localApi = client(local.url, k.secret);
    const { invoice } = await openInvoice(localApi, { email: 'outbox@example.com' });
    const sent = await localApi.post(`/v1/invoices/${invoice.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    await emailSettled(localApi, invoice.id);
    const files = await readdir(path.join(dataDir, 'outbox'));
    assert.equal(files.length, 1);
    assert.match(files[0]!, /INV-000001\.eml$/);
    const eml = await readFile(path.join(dataDir, 'outbox', files[0]!), 'utf8');
    assert.match(eml, /To: outbox@example\.com/);
    assert.ok(pdfAttachment(eml));
    assert.ok(logs.some((l) => l.includes('outbox') && l.includes(files[0]!)));
  });
});

describe('invoice PDF', () => {
  it('is a real PDF with seller, customer, number, dates, lines and totals', async () => {
    const { invoice } = await openInvoice(api, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      address: { line1: '12 St James Square', city: 'London', postalCode: 'SW1Y', country: 'GB' },
      taxIds: [{ type: 'gb_vat', value: 'GB123456789' }],
    });
    const res = await fetch(`${server.url}/v1/invoices/${invoice.id}/pdf`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.match(
      res.headers.get('content-disposition') ?? '',
      new RegExp(`${invoice.number}\\.pdf`),
    );
    const text = await pdfText(new Uint8Array(await res.arrayBuffer()));
    for (const expected of [
      'ACME Widgets GmbH',
      'Hauptstrasse 1',
      'DE999999999',
      'Ada Lovelace',
      '12 St James Square',
      'GB123456789',
      invoice.number,
      formatDate(invoice.issuedAt.slice(0, 10), 'en'),
      'Analytical engine maintenance',
      'Punch cards',
      '€125.00',
      '€250.00',
      '€15.00',
      'Total',
      '€265.00',
      'Amount due',
      'Payable within 30 days.',
    ]) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}`);
    }
    assert.ok(!text.includes('Reverse charge'));
  });

  it('formats yen without and dinar with three decimals', async () => {
    const customer = await createCustomer(api);
    for (const [currency, unitAmount, shown] of [
      ['jpy', 123456, '¥123,456'],
      ['kwd', 1234567, 'KWD 1,234.567'],
    ] as const) {
      const invoice = await createInvoice(api, {
        customerId: customer.id,
        currency,
        lines: [{ description: 'x', unitAmount }],
      });
      const pdf = await fetch(`${server.url}/v1/invoices/${invoice.id}/pdf`, {
        headers: { authorization: `Bearer ${key.secret}` },
      });
      const text = (await pdfText(new Uint8Array(await pdf.arrayBuffer()))).replace(/\s/g, ' ');
      assert.ok(text.includes(shown), `${currency}: ${shown}`);
    }
  });

  it('renders a draft as a draft, and answers 404 for an unknown invoice', async () => {
    const draft = await createInvoice(api, {
      customerId: (await createCustomer(api, { name: 'Draft Customer' })).id,
      lines: [{ description: 'x', unitAmount: 1 }],
    });
    const res = await fetch(`${server.url}/v1/invoices/${draft.id}/pdf`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    const text = await pdfText(new Uint8Array(await res.arrayBuffer()));
    assert.match(text, /DRAFT/);
    assert.match(text, /Draft Customer/);
    assertError(await api.get('/v1/invoices/inv_nothing/pdf'), 404, 'resource_missing');
  });
});
