import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertError,
  createCustomer,
  createInvoice,
  createTaxRate,
  startInvoiceApp,
  tenantApi,
  type Api,
} from './fixtures.ts';

const server = await startInvoiceApp();

/** A GLN with a valid check digit: a Peppol participant identifier (scheme 0088). */
const GLN = { scheme: '0088', value: '4000001000005' };

/** The README's walk-through: a German seller without phone, a customer with only an e-mail. */
async function walkThrough(api: Api, seller: Record<string, unknown> = {}) {
  const settings = await api.patch('/v1/settings', {
    legalName: 'Acme GmbH',
    taxId: 'DE123456789',
    address: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    paymentDetails: { iban: 'DE89370400440532013000' },
    email: 'billing@acme.example',
    ...seller,
  });
  assert.equal(settings.status, 200, settings.text);
  const customer = await createCustomer(api, {
    name: 'Kunde AG',
    email: 'ap@kunde.example',
    address: { line1: 'Marktplatz 2', city: 'Köln', postalCode: '50667', country: 'DE' },
  });
  const rate = await createTaxRate(api, { percentage: 19 });
  const draft = await createInvoice(api, {
    customerId: customer.id,
    defaultTaxRates: [rate.id],
    daysUntilDue: 14,
    lines: [{ description: 'Consulting', quantity: 3, unitAmount: 12000, unitCode: 'HUR' }],
  });
  return { customer, draft };
}

const events = async (tenantId: string, invoiceId: string) =>
  (
    await server.db.query(
      `SELECT type FROM events WHERE tenant_id = $1 AND object_id = $2 ORDER BY created_at, id`,
      [tenantId, invoiceId],
    )
  ).rows.map((r) => r.type as string);

describe('e-invoice readiness', () => {
  it('shows a draft not ready with exactly what is missing, and ready once it is set', async () => {
    const { api } = await tenantApi(server);
    const { customer, draft } = await walkThrough(api);
    const expected = { ready: false, missing: ['customer.electronicAddress', 'seller.phone'] };
    assert.deepEqual(draft.einvoice, expected);
    assert.deepEqual((await api.get(`/v1/invoices/${draft.id}`)).body.einvoice, expected);
    const listed = (await api.get('/v1/invoices')).body.data;
    assert.deepEqual(listed.find((i: any) => i.id === draft.id).einvoice, expected);

    const fixed = await api.patch(`/v1/customers/${customer.id}`, { electronicAddress: GLN });
    assert.equal(fixed.status, 200, fixed.text);
    assert.deepEqual((await api.get(`/v1/invoices/${draft.id}`)).body.einvoice, {
      ready: false,
      missing: ['seller.phone'],
    });
    assert.equal((await api.patch('/v1/settings', { phone: '+49 30 1234567' })).status, 200);
    const ready = (await api.get(`/v1/invoices/${draft.id}`)).body;
    assert.deepEqual(ready.einvoice, { ready: true, missing: [] });

    const issued = await api.post(`/v1/invoices/${draft.id}/issue`);
    assert.equal(issued.status, 200, issued.text);
    assert.deepEqual(issued.body.einvoice, { ready: true, missing: [] });
    for (const format of ['ubl', 'cii']) {
      const xml = await api.get(`/v1/invoices/${draft.id}/e-invoice?format=${format}`);
      assert.equal(xml.status, 200, xml.text);
    }
  });

  it("equals what the issued invoice's e-invoice request answers", async () => {
    const { api } = await tenantApi(server);
    const { draft } = await walkThrough(api);
    const before = (await api.get(`/v1/invoices/${draft.id}`)).body.einvoice;
    assert.equal(before.ready, false);
    const issued = await api.post(`/v1/invoices/${draft.id}/issue`);
    assert.equal(issued.status, 200, issued.text);
    assert.deepEqual(issued.body.einvoice, before);
    assert.deepEqual((await api.get(`/v1/invoices/${draft.id}`)).body.einvoice, before);
    const ubl = await api.get(`/v1/invoices/${draft.id}/e-invoice?format=ubl`);
    assertError(ubl, 409, 'einvoice_incomplete');
    assert.deepEqual(ubl.body.error.missing, before.missing);
    // The CII (EN 16931 without Peppol's rules) accepts the e-mail address and needs no phone.
    assert.equal((await api.get(`/v1/invoices/${draft.id}/e-invoice?format=cii`)).status, 200);
  });

  it('says why an e-mail address (EM) is not enough for Peppol, and what is', async () => {
    const { api } = await tenantApi(server);
    const { draft } = await walkThrough(api, { phone: '+49 30 1234567' });
    assert.equal((await api.post(`/v1/invoices/${draft.id}/issue`)).status, 200);
    const ubl = await api.get(`/v1/invoices/${draft.id}/e-invoice?format=ubl`);
    assertError(ubl, 409, 'einvoice_incomplete');
    const message: string = ubl.body.error.message;
    assert.doesNotMatch(message, /lacks/);
    assert.match(message, /customer\.electronicAddress: .*e-mail address \(scheme EM\)/);
    assert.match(message, /Peppol cannot route/);
    assert.match(message, /0088 GLN/);
    assert.match(message, /CII e-invoice and the Factur-X PDF accept EM/);
    assert.deepEqual(ubl.body.error.missing, ['customer.electronicAddress']);
    const issued = (await api.get(`/v1/invoices/${draft.id}`)).body;
    assert.deepEqual(issued.einvoice, { ready: false, missing: ['customer.electronicAddress'] });

    // A credit note of that invoice says the same of its UBL.
    const note = await api.post('/v1/credit-notes', { invoiceId: draft.id, amount: 1000 });
    assert.equal(note.status, 201, note.text);
    const noteUbl = await api.get(`/v1/credit-notes/${note.body.id}/e-invoice?format=ubl`);
    assertError(noteUbl, 409, 'einvoice_incomplete');
    assert.deepEqual(noteUbl.body.error.missing, ['customer.electronicAddress']);
    assert.match(noteUbl.body.error.message, /e-mail address \(scheme EM\), which Peppol cannot/);
  });

  it('with einvoiceRequired, refuses to issue an unready draft and changes nothing', async () => {
    const { api, key } = await tenantApi(server);
    assert.equal((await api.get('/v1/settings')).body.einvoiceRequired, false);
    const { customer, draft } = await walkThrough(api);
    const set = await api.patch('/v1/settings', { einvoiceRequired: true });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.einvoiceRequired, true);
    assert.equal((await api.get('/v1/settings')).body.einvoiceRequired, true);

    const readiness = (await api.get(`/v1/invoices/${draft.id}`)).body.einvoice;
    const refused = await api.post(`/v1/invoices/${draft.id}/issue`);
    assertError(refused, 409, 'einvoice_incomplete');
    assert.deepEqual(refused.body.error.missing, readiness.missing);
    assert.match(refused.body.error.message, /einvoiceRequired/);
    assert.match(refused.body.error.message, /seller\.phone: German domestic/);
    const after = (await api.get(`/v1/invoices/${draft.id}`)).body;
    assert.equal(after.status, 'draft');
    assert.equal(after.number, null);
    assert.equal(after.issuedAt, null);
    assert.deepEqual(await events(key.tenantId, draft.id), ['invoice.created']);

    await api.patch(`/v1/customers/${customer.id}`, { electronicAddress: GLN });
    await api.patch('/v1/settings', { phone: '+49 30 1234567' });
    const issued = await api.post(`/v1/invoices/${draft.id}/issue`);
    assert.equal(issued.status, 200, issued.text);
    assert.equal(issued.body.number, 'INV-000001', 'the refusal took no number');
    assert.deepEqual(issued.body.einvoice, { ready: true, missing: [] });
    assert.deepEqual(await events(key.tenantId, draft.id), ['invoice.created', 'invoice.issued']);
  });
});
