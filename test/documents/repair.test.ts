// E-invoices stored before every text was escaped: a name such as `Smith &e; Ltd` was written
// as it is, so the stored UBL and CII, and the PDF's factur-x.xml, are not XML a parser reads.
// Such documents are stored here the way that code stored them, straight into the documents
// table; serving them, and `billing documents repair`, replace them by the documents rendered
// again from the frozen data, which a strict parser reads and which equal a fresh render.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { creditNoteModel } from '../../src/credit-notes/documents.ts';
import { invoiceModel } from '../../src/invoices/documents.ts';
import type { DocumentModel } from '../../src/documents/model.ts';
import { renderPdf } from '../../src/documents/pdf/render.ts';
import type { TenantScope } from '../../src/tenancy.ts';
import { credit } from '../credit-notes/fixtures.ts';
import { databaseEnv } from '../helpers.ts';
import { createCustomer, createTaxRate, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { embeddedFacturX } from './pdf-reader.ts';
import { readXmlStrictly } from './strict-xml.ts';

const server = await startInvoiceApp();
const run = promisify(execFile);

type Format = 'pdf' | 'ubl' | 'cii';
type Documents = Record<Format, Buffer>;

async function bytes(secret: string, path: string): Promise<Buffer> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  const body = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, `${path}: ${body.toString()}`);
  return body;
}

/** A seller whose e-invoices can be made, named as the old code could not write. */
async function sellerWithAmpersands() {
  const { api, key } = await tenantApi(server);
  const settings = await api.patch('/v1/settings', {
    legalName: 'Smith &e; Ltd',
    taxId: 'NL123456789B01',
    companyRegistration: '12345678',
    email: 'billing@smith.example',
    address: {
      line1: 'Keizersgracht &#1; 1',
      city: 'Amsterdam',
      postalCode: '1015 CS',
      country: 'NL',
    },
    paymentDetails: { iban: 'NL91ABNA0417164300', bic: 'ABNANL2A', accountName: 'Smith &e; Ltd' },
  });
  assert.equal(settings.status, 200, settings.text);
  const customer = await createCustomer(api, {
    name: 'Tom &lt;b&gt; Ltd',
    email: 'ap@brussels.example',
    address: { line1: 'Rue &e; 1', city: 'Bruxelles', postalCode: '1000', country: 'BE' },
    taxIds: [{ type: 'eu_vat', value: 'BE0123456749' }],
  });
  const vat = await createTaxRate(api, { percentage: 21, displayName: 'VAT' });
  const draft = await api.post('/v1/invoices', {
    currency: 'eur',
    customerId: customer.id,
    defaultTaxRates: [vat.id],
    lines: [{ description: 'Consulting &e;', unitAmount: 10000 }],
    daysUntilDue: 14,
  });
  assert.equal(draft.status, 201, draft.text);
  const issued = await api.post(`/v1/invoices/${draft.body.id}/issue`);
  assert.equal(issued.status, 200, issued.text);
  const note = await credit(api, {
    invoiceId: draft.body.id,
    amount: 1000,
    reason: 'order_change',
    memo: 'Rabatt &e;',
  });
  return { key, invoiceId: draft.body.id as string, noteId: note.id as string };
}

function paths(id: string) {
  const base = id.startsWith('cn_') ? `/v1/credit-notes/${id}` : `/v1/invoices/${id}`;
  return { pdf: `${base}/pdf`, ubl: `${base}/e-invoice`, cii: `${base}/e-invoice?format=cii` };
}

async function served(secret: string, id: string): Promise<Documents> {
  const p = paths(id);
  return {
    pdf: await bytes(secret, p.pdf),
    ubl: await bytes(secret, p.ubl),
    cii: await bytes(secret, p.cii),
  };
}

/**
 * Overwrites the stored documents with what the code before escaping wrote: each `&` of the
 * text left as typed (its writer kept whatever looked like a reference), and the PDF carrying
 * that CII as its factur-x.xml. Returns the broken bytes.
 */
async function storeAsBeforeEscaping(scope: TenantScope, id: string, good: Documents) {
  const unescape = (xml: Buffer) => Buffer.from(xml.toString('utf8').replaceAll('&amp;', '&'));
  const ubl = unescape(good.ubl);
  const cii = unescape(good.cii);
  assert.throws(() => readXmlStrictly(ubl.toString()), /entity|Entity|&/);
  const model: DocumentModel = id.startsWith('cn_')
    ? await creditNoteModel(server.db, scope, id)
    : (await invoiceModel(server.db, scope, id, server.clock.now())).model;
  const pdf = await renderPdf(model, { facturX: cii.toString('utf8') });
  assert.notDeepEqual(pdf, good.pdf);
  const broken: Documents = { pdf, ubl, cii };
  for (const format of ['pdf', 'ubl', 'cii'] as const) {
    const { rowCount } = await server.db.query(
      `UPDATE documents SET content = $5, sha256 = sha256($5), xml_checked = false
        WHERE tenant_id = $1 AND environment = $2 AND subject_id = $3 AND format = $4`,
      [scope.tenantId, scope.environment, id, format, broken[format]],
    );
    assert.equal(rowCount, 1);
  }
  return broken;
}

async function marks(scope: TenantScope, id: string) {
  const { rows } = await server.db.query(
    `SELECT format, repaired_at, replaced_sha256 FROM documents
      WHERE tenant_id = $1 AND environment = $2 AND subject_id = $3 ORDER BY format`,
    [scope.tenantId, scope.environment, id],
  );
  return new Map(rows.map((r) => [r.format as Format, r]));
}

const sha256 = (content: Buffer) => createHash('sha256').update(content).digest();

function assertGood(documents: Documents, fresh: Documents) {
  const ubl = readXmlStrictly(documents.ubl.toString());
  assert.ok(ubl.texts.get('RegistrationName')?.includes('Smith &e; Ltd'));
  const cii = readXmlStrictly(documents.cii.toString());
  assert.deepEqual(readXmlStrictly(embeddedFacturX(documents.pdf)), cii);
  assert.deepEqual(documents, fresh, 'the documents as rendered now from the frozen data');
}

describe('e-invoices stored before escaping', () => {
  it('are replaced when served, by the documents rendered again from the frozen data', async () => {
    const { key, invoiceId, noteId } = await sellerWithAmpersands();
    const scope: TenantScope = { tenantId: key.tenantId, environment: key.environment };
    for (const id of [invoiceId, noteId]) {
      const fresh = await served(key.secret, id);
      const broken = await storeAsBeforeEscaping(scope, id, fresh);

      // The PDF first: its factur-x.xml is the broken CII, so it is replaced with it.
      assertGood(
        {
          pdf: await bytes(key.secret, paths(id).pdf),
          ubl: await bytes(key.secret, paths(id).ubl),
          cii: await bytes(key.secret, paths(id).cii),
        },
        fresh,
      );
      const marked = await marks(scope, id);
      for (const format of ['pdf', 'ubl', 'cii'] as const) {
        const row = marked.get(format)!;
        assert.ok(row.repaired_at instanceof Date, `${format} is marked as replaced`);
        assert.deepEqual(row.replaced_sha256, sha256(broken[format]));
      }
      // Served again: the same bytes, replaced once.
      assertGood(await served(key.secret, id), fresh);
      assert.deepEqual(await marks(scope, id), marked);
    }
    const invoice = await fetch(`${server.url}/v1/invoices/${invoiceId}`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    assert.deepEqual((await invoice.json()).einvoice, { ready: true, missing: [] });
  });

  it('that are well-formed are read back once, then served without parsing, unchanged', async () => {
    const { key, invoiceId } = await sellerWithAmpersands();
    const scope: TenantScope = { tenantId: key.tenantId, environment: key.environment };
    const fresh = await served(key.secret, invoiceId);
    const checked = async () =>
      (
        await server.db.query<{ xml_checked: boolean }>(
          `SELECT xml_checked FROM documents
            WHERE tenant_id = $1 AND environment = $2 AND subject_id = $3`,
          [scope.tenantId, scope.environment, invoiceId],
        )
      ).rows.map((r) => r.xml_checked);
    // Stored by the renderer that reads every XML document back: checked already.
    assert.deepEqual(await checked(), [true, true, true]);
    await server.db.query(
      `UPDATE documents SET xml_checked = false
        WHERE tenant_id = $1 AND environment = $2 AND subject_id = $3`,
      [scope.tenantId, scope.environment, invoiceId],
    );
    assert.deepEqual(await served(key.secret, invoiceId), fresh);
    assert.deepEqual(await checked(), [true, true, true]);
    const marked = await marks(scope, invoiceId);
    for (const row of marked.values()) assert.equal(row.repaired_at, null);
  });

  it('are counted by `billing documents repair --dry-run` and replaced by `billing documents repair`', async () => {
    const other = await sellerWithAmpersands();
    const { key, invoiceId, noteId } = await sellerWithAmpersands();
    const scope: TenantScope = { tenantId: key.tenantId, environment: key.environment };
    const fresh = new Map<string, Documents>();
    for (const id of [invoiceId, noteId]) {
      fresh.set(id, await served(key.secret, id));
      await storeAsBeforeEscaping(scope, id, fresh.get(id)!);
    }
    // Another tenant's broken document is left alone with --tenant.
    const otherScope: TenantScope = { tenantId: other.key.tenantId, environment: 'test' };
    const otherFresh = await served(other.key.secret, other.invoiceId);
    const otherBroken = await storeAsBeforeEscaping(otherScope, other.invoiceId, otherFresh);

    const billing = async (...args: string[]) => {
      const { stdout } = await run(
        process.execPath,
        [path.resolve('bin/billing.js'), 'documents', 'repair', '--json', ...args],
        { env: { ...process.env, ...databaseEnv(server.databaseUrl), LOG_LEVEL: 'silent' } },
      );
      return JSON.parse(stdout);
    };
    const none = { pdf: 0, ubl: 0, cii: 0 };
    const both = { pdf: 2, ubl: 2, cii: 2 };
    assert.deepEqual(await billing('--tenant', key.tenantId, '--dry-run'), {
      dryRun: true,
      subjects: 2,
      einvoices: 4,
      broken: both,
      repaired: none,
    });
    assert.equal((await marks(scope, invoiceId)).get('ubl')!.repaired_at, null, 'a dry run');
    assert.deepEqual(await billing('--tenant', key.tenantId), {
      dryRun: false,
      subjects: 2,
      einvoices: 4,
      broken: both,
      repaired: both,
    });
    for (const id of [invoiceId, noteId]) {
      const { rows } = await server.db.query(
        `SELECT format, content FROM documents
          WHERE tenant_id = $1 AND environment = $2 AND subject_id = $3`,
        [scope.tenantId, scope.environment, id],
      );
      const stored = Object.fromEntries(rows.map((r) => [r.format, r.content])) as Documents;
      assertGood(stored, fresh.get(id)!);
    }
    const { rows } = await server.db.query(
      `SELECT content FROM documents WHERE tenant_id = $1 AND subject_id = $2 AND format = 'ubl'`,
      [other.key.tenantId, other.invoiceId],
    );
    assert.deepEqual(rows[0].content, otherBroken.ubl, 'another tenant is left alone');
    assert.deepEqual(await billing('--tenant', key.tenantId), {
      dryRun: false,
      subjects: 2,
      einvoices: 4,
      broken: none,
      repaired: none,
    });
  });
});
