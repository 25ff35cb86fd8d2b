// Documents off the request path (docs/einvoices.md, "When documents are rendered"): an issue or
// a credit note answers once committed and queues its render (document_renders); the worker or
// the first reader renders it, once per subject, and whoever renders, the bytes are the same.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createRenderPool } from '../../src/documents/render-pool.ts';
import { createIssuedDocuments } from '../../src/documents/service.ts';
import { call, createTestDatabase, drivenClock, startTestServer } from '../helpers.ts';
import { testPool, waitFor, type TestServer } from '../helpers.ts';
import { credit, openInvoice } from '../credit-notes/fixtures.ts';
import { einvoiceTenant, tempDir } from '../invoices/fixtures.ts';
import { startInvoiceApp } from '../invoices/fixtures.ts';
import { startSmtp } from '../mail/smtp.ts';
import { advance, createClock, createPrice } from '../subscriptions/fixtures.ts';
import { testMailWorker } from '../mail/workers.ts';

const smtp = await startSmtp();
// No worker: documents are rendered by their first reader only.
const plain = await startInvoiceApp({ runWorker: false, smtpUrl: smtp.url });
// The worker, on a database of its own: its polls wake when the test moves its clock.
const clock = drivenClock();
const workerServer = await startTestServer(
  await createTestDatabase(),
  { runWorker: true, dataDir: await tempDir(), rateLimitTest: 1_000_000 },
  undefined,
  clock,
);

/** A tenant complete for EN 16931 (its invoices have e-invoices) with a customer and a rate. */
async function seller(server: TestServer) {
  const { api, key, customer, vat } = await einvoiceTenant(
    server,
    (tenant: string) => `ap-${tenant}@brussels.example`,
  );
  const issue = (): Promise<{ id: string }> =>
    openInvoice(api, { customerId: customer.id, defaultTaxRates: [vat.id], daysUntilDue: 14 });
  const get = async (path: string) => {
    const res = await fetch(`${server.url}${path}`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    return { status: res.status, type: res.headers.get('content-type'), bytes: await body(res) };
  };
  return { api, key, customer, issue, get };
}

const body = async (res: Response) => Buffer.from(await res.arrayBuffer());
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The subject's stored formats, and its queued renders (kinds). */
async function state(server: TestServer, subjectId: string) {
  const docs = await server.db.query<{ format: string }>(
    'SELECT format FROM documents WHERE subject_id = $1 ORDER BY format',
    [subjectId],
  );
  const queued = await server.db.query<{ kind: string }>(
    'SELECT kind FROM document_renders WHERE subject_id = $1',
    [subjectId],
  );
  return { formats: docs.rows.map((r) => r.format), queued: queued.rows.map((r) => r.kind) };
}

/** billing_documents_rendered_total of the server (GET /metrics from loopback). */
async function rendered(server: TestServer): Promise<number> {
  const res = await call(server.url, 'GET', '/metrics');
  assert.equal(res.status, 200);
  const sample = /^billing_documents_rendered_total (\S+)$/m.exec(res.text);
  assert.ok(sample, 'billing_documents_rendered_total is exposed');
  return Number(sample[1]);
}

/** Until the worker has stored the subject's documents and removed its render from the queue. */
async function renderedByWorker(subjectId: string): Promise<void> {
  await waitFor(async () => {
    clock.advance(1_000); // the worker's next poll, should it have missed the issue's poke
    const now = await state(workerServer, subjectId);
    return now.formats.length === 3 && now.queued.length === 0;
  }, `the worker rendered ${subjectId}`);
}

const pdfAndUbl = async (tenant: Awaited<ReturnType<typeof seller>>, path: string) => {
  const [pdf, ubl] = await Promise.all([
    tenant.get(`${path}/pdf`),
    tenant.get(`${path}/e-invoice`),
  ]);
  assert.equal(pdf.status, 200);
  assert.equal(ubl.status, 200, ubl.bytes.toString());
  return { pdf: sha256(pdf.bytes), ubl: sha256(ubl.bytes) };
};

/** A 21 % rate of the tenant's own, for a product's lines. */
async function einvoiceTenantRate(api: Awaited<ReturnType<typeof seller>>['api']) {
  const rate = await api.post('/v1/tax-rates', {
    displayName: 'VAT',
    inclusive: false,
    percentage: 21,
  });
  assert.equal(rate.status, 201, rate.text);
  return { vat: rate.body.id as string };
}

const plainTenant = await seller(plain);
const workerTenant = await seller(workerServer);

describe('documents rendered off the request path', () => {
  it('answers an issue and a credit note before rendering, and the first reader renders', async () => {
    const invoice = await plainTenant.issue();
    assert.deepEqual(await state(plain, invoice.id), { formats: [], queued: ['invoice'] });
    const pdf = await plainTenant.get(`/v1/invoices/${invoice.id}/pdf`);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.type, 'application/pdf');
    assert.equal(pdf.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.deepEqual(await state(plain, invoice.id), {
      formats: ['cii', 'pdf', 'ubl'],
      queued: [],
    });

    const note = await credit(plainTenant.api, {
      invoiceId: invoice.id,
      amount: 1210,
      reason: 'order_change',
    });
    assert.deepEqual(await state(plain, note.id), { formats: [], queued: ['credit_note'] });
    const notePdf = await plainTenant.get(`/v1/credit-notes/${note.id}/pdf`);
    assert.equal(notePdf.status, 200);
    assert.equal(notePdf.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.deepEqual(await state(plain, note.id), { formats: ['cii', 'pdf', 'ubl'], queued: [] });
  });

  it('renders the same bytes from the queue, with no queue row, and in the worker', async () => {
    const invoice = await plainTenant.issue();
    const path = `/v1/invoices/${invoice.id}`;
    const firstRead = await pdfAndUbl(plainTenant, path);
    await plain.db.query('DELETE FROM documents WHERE subject_id = $1', [invoice.id]);
    assert.deepEqual(await state(plain, invoice.id), { formats: [], queued: [] });
    assert.deepEqual(await pdfAndUbl(plainTenant, path), firstRead);

    const byWorker = await workerTenant.issue();
    await renderedByWorker(byWorker.id);
    const workerPath = `/v1/invoices/${byWorker.id}`;
    const worker = await pdfAndUbl(workerTenant, workerPath);
    await workerServer.db.query('DELETE FROM documents WHERE subject_id = $1', [byWorker.id]);
    assert.deepEqual(await pdfAndUbl(workerTenant, workerPath), worker);
  });

  it('renders a subscription invoice issued by the billing run late, a month on, to the same bytes', async () => {
    const { api, key } = workerTenant;
    const grace = await api.patch('/v1/settings', { invoiceGraceMinutes: 0 });
    assert.equal(grace.status, 200, grace.text);
    const { vat } = await einvoiceTenantRate(api);
    const price = await createPrice(api, { unitAmount: 4200, taxRates: [vat] });
    const testClock = await createClock(api, '2027-01-20T00:00:00.000Z');
    const customer = await api.post('/v1/customers', {
      name: 'Brussels Trading SA',
      email: `ap-${key.tenantId}@brussels.example`,
      address: { line1: 'Rue Royale 1', city: 'Bruxelles', postalCode: '1000', country: 'BE' },
      taxIds: [{ type: 'eu_vat', value: 'BE0123456749' }],
      testClockId: testClock.id,
    });
    assert.equal(customer.status, 201, customer.text);
    const sub = await api.post('/v1/subscriptions', {
      customerId: customer.body.id,
      items: [{ priceId: price.id }],
      billingCycleAnchor: '2027-02-01T00:00:00.000Z',
      prorationBehavior: 'none',
      daysUntilDue: 14,
    });
    assert.equal(sub.status, 201, sub.text);
    await advance(api, testClock.id, '2027-02-01T00:30:00.000Z');
    const invoices = await api.get(`/v1/invoices?subscriptionId=${sub.body.id}`);
    const [invoice] = invoices.body.data as { id: string; status: string }[];
    assert.equal(invoice?.status, 'open');
    await renderedByWorker(invoice.id);
    const path = `/v1/invoices/${invoice.id}`;
    const atOnce = await pdfAndUbl(workerTenant, path);
    // Rendered again a month later (the documents gone, the queue empty): the same bytes.
    await workerServer.db.query('DELETE FROM documents WHERE subject_id = $1', [invoice.id]);
    clock.advance(31 * 24 * 3600_000);
    assert.deepEqual(await pdfAndUbl(workerTenant, path), atOnce);
  });

  it('renders once for 16 concurrent readers, in one transaction', async () => {
    const before = await rendered(plain);
    const invoice = await plainTenant.issue();
    const reads = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        plainTenant.get(`/v1/invoices/${invoice.id}/${i % 2 ? 'pdf' : 'e-invoice'}`),
      ),
    );
    for (const read of reads) assert.equal(read.status, 200);
    for (const i of [0, 1]) {
      const same = new Set(reads.filter((_, j) => j % 2 === i).map((r) => sha256(r.bytes)));
      assert.equal(same.size, 1);
    }
    assert.equal((await rendered(plain)) - before, 1);
    const { rows } = await plain.db.query(
      'SELECT count(DISTINCT xmin::text)::int AS n, count(*)::int AS docs FROM documents WHERE subject_id = $1',
      [invoice.id],
    );
    assert.deepEqual(rows[0], { n: 1, docs: 3 });
    assert.deepEqual((await state(plain, invoice.id)).queued, []);
  });

  it('removes a queued render whose documents are stored without rendering again', async () => {
    const invoice = await workerTenant.issue();
    await renderedByWorker(invoice.id);
    const before = await rendered(workerServer);
    const { tenantId, environment } = workerTenant.key;
    await workerServer.db.query(
      `INSERT INTO document_renders (tenant_id, environment, subject_id, kind)
       VALUES ($1, $2, $3, 'invoice')`,
      [tenantId, environment, invoice.id],
    );
    // Gone only once the worker claimed and handled it (nothing else removes it here).
    await renderedByWorker(invoice.id);
    assert.equal(await rendered(workerServer), before);
  });

  it('renders once when the worker and a reader race', async () => {
    const before = await rendered(workerServer);
    const invoice = await workerTenant.issue(); // pokes the worker
    const reads = await Promise.all(
      Array.from({ length: 4 }, () => {
        clock.advance(1_000);
        return workerTenant.get(`/v1/invoices/${invoice.id}/pdf`);
      }),
    );
    for (const read of reads) assert.equal(read.status, 200);
    assert.equal(new Set(reads.map((r) => sha256(r.bytes))).size, 1);
    await renderedByWorker(invoice.id);
    // Stopped, the worker has finished what it claimed: the count is final.
    await workerServer.jobs!.renders.stop();
    assert.equal((await rendered(workerServer)) - before, 1);
  });

  it('attaches to the e-mail the PDF a reader gets, rendered by the mail worker', async () => {
    const renderer = createRenderPool({ threads: 1 });
    after(() => renderer.close());
    const documents = createIssuedDocuments({ renderer, clock: plain.clock });
    const pool = testPool(plain.databaseUrl, 4);
    after(() => pool.end());
    const mail = testMailWorker(pool, plain, smtp, documents);

    const invoice = await plainTenant.issue();
    const sent = await plainTenant.api.post(`/v1/invoices/${invoice.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    assert.deepEqual(await state(plain, invoice.id), { formats: [], queued: ['invoice'] });
    mail.start();
    const to = `ap-${plainTenant.key.tenantId}@brussels.example`;
    const message = await waitFor(
      () => smtp.deliveries.find((d) => d.to.includes(to)),
      'the invoice e-mail',
    );
    const attached = /Content-Type: application\/pdf[^]*?\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(
      message.raw,
    );
    assert.ok(attached, 'the message has a PDF attachment');
    const pdf = Buffer.from(attached[1]!.replace(/\s/g, ''), 'base64');
    assert.deepEqual(await state(plain, invoice.id), {
      formats: ['cii', 'pdf', 'ubl'],
      queued: [],
    });
    const read = await plainTenant.get(`/v1/invoices/${invoice.id}/pdf`);
    assert.equal(sha256(read.bytes), sha256(pdf));
    await mail.stop();
  });

  it("renders as many e-mails' PDFs at once as its pool has connections, each render holding one", async () => {
    // Four e-mails sent at once by a worker with a pool of two connections, none of their PDFs
    // stored yet: each e-mail renders its PDF. A render that read its model on the pool while
    // its transaction held a connection waited for a second one; two of them held the pool
    // until its timeout, and their e-mails failed and waited for a retry.
    const renderer = createRenderPool({ threads: 1 });
    after(() => renderer.close());
    const documents = createIssuedDocuments({ renderer, clock: plain.clock });
    const pool = testPool(plain.databaseUrl, 2);
    after(() => pool.end());
    const mail = testMailWorker(pool, plain, smtp, documents);
    const invoices = await Promise.all(Array.from({ length: 4 }, () => plainTenant.issue()));
    for (const invoice of invoices) {
      const sent = await plainTenant.api.post(`/v1/invoices/${invoice.id}/send`);
      assert.equal(sent.status, 200, sent.text);
    }
    mail.start();
    const ids = invoices.map((i) => i.id);
    const rows = await waitFor(async () => {
      const { rows } = await plain.db.query<{
        status: string;
        attempts: number;
        error: string | null;
      }>(
        `SELECT status, attempts, last_error AS error FROM mail_outbox
          WHERE subject_id = ANY($1) AND (status <> 'queued' OR last_error IS NOT NULL)`,
        [ids],
      );
      return rows.length === ids.length || rows.some((r) => r.error) ? rows : undefined;
    }, 'the four e-mails');
    assert.deepEqual(
      rows,
      ids.map(() => ({ status: 'sent', attempts: 1, error: null })),
    );
    for (const id of ids) {
      assert.deepEqual(await state(plain, id), { formats: ['cii', 'pdf', 'ubl'], queued: [] });
    }
  });
});
