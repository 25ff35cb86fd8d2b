// Every refused credit note: the error envelope with a stable code, and nothing changed (no
// invoice amount, no credit note, no number taken, no event).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenantWithKey, client, type ApiResponse } from '../helpers.ts';
import {
  assertError,
  createCustomer,
  createInvoice,
  createTaxRate,
  credit,
  openInvoice,
  startInvoiceApp,
  tenantApi,
  tenantState,
} from './fixtures.ts';

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const customer = await createCustomer(api);
const vat = await createTaxRate(api, { percentage: 19 });
const open = await openInvoice(api, { customerId: customer.id, defaultTaxRates: [vat.id] });
const draft = await createInvoice(api, {
  customerId: customer.id,
  lines: [{ description: 'x', unitAmount: 100 }],
});
const voided = await openInvoice(api, { customerId: customer.id });
await api.post(`/v1/invoices/${voided.id}/void`);
const uncollectible = await openInvoice(api, { customerId: customer.id });
await api.post(`/v1/invoices/${uncollectible.id}/mark-uncollectible`);

/** Sends the request, checks the envelope, and that the tenant's data did not move. */
async function refused(
  send: () => Promise<ApiResponse>,
  status: number,
  code: string,
  param?: string,
) {
  const before = await tenantState(server.db, key.tenantId);
  const res = await send();
  assertError(res, status, code, param);
  assert.equal(typeof res.body.error.message, 'string');
  assert.equal(res.body.error.requestId, res.headers.get('request-id'));
  assert.deepEqual(await tenantState(server.db, key.tenantId), before);
}

const create = (body: Record<string, unknown>) => () => api.post('/v1/credit-notes', body);

describe('refused credit notes change nothing', () => {
  it('refuses invoices that are draft, void or uncollectible (409 state_invalid)', async () => {
    for (const invoice of [draft, voided, uncollectible]) {
      await refused(create({ invoiceId: invoice.id, amount: 1 }), 409, 'state_invalid');
    }
  });

  it('refuses amounts of zero, below zero, fractions and text (400 parameter_invalid)', async () => {
    for (const amount of [0, -1, -11900, 1.5, '100', null]) {
      await refused(create({ invoiceId: open.id, amount }), 400, 'parameter_invalid', 'amount');
    }
    await refused(
      create({ invoiceId: open.id, lines: [{ description: 'x', amount: 0 }] }),
      400,
      'parameter_invalid',
      'lines.0.amount',
    );
    await refused(create({ invoiceId: open.id, lines: [] }), 400, 'parameter_invalid', 'lines');
  });

  it('refuses more than the invoice has left to credit (400 parameter_invalid)', async () => {
    await refused(
      create({ invoiceId: open.id, amount: 11901 }),
      400,
      'parameter_invalid',
      'amount',
    );
    await refused(
      create({
        invoiceId: open.id,
        lines: [
          { description: 'a', amount: 11000 },
          { description: 'b', amount: 901 },
        ],
      }),
      400,
      'parameter_invalid',
      'lines.1.amount',
    );
    await refused(
      create({
        invoiceId: open.id,
        lines: [{ description: 'a', amount: 11901, invoiceLineId: open.lines[0].id }],
      }),
      400,
      'parameter_invalid',
      'lines.0.amount',
    );
  });

  it('takes the invoice’s currency: a currency field is an unknown parameter', async () => {
    await refused(
      create({ invoiceId: open.id, amount: 100, currency: 'usd' }),
      400,
      'parameter_invalid',
      'currency',
    );
  });

  it('needs an invoice, and amount or lines but not both', async () => {
    await refused(create({ amount: 100 }), 400, 'parameter_missing', 'invoiceId');
    await refused(create({ invoiceId: open.id }), 400, 'parameter_missing', 'amount');
    await refused(
      create({ invoiceId: open.id, amount: 100, lines: [{ description: 'x', amount: 100 }] }),
      400,
      'parameter_invalid',
      'lines',
    );
    await refused(
      create({ invoiceId: open.id, amount: 100, reason: 'changed_mind' }),
      400,
      'parameter_invalid',
      'reason',
    );
    await refused(
      create({ invoiceId: open.id, lines: [{ amount: 100 }] }),
      400,
      'parameter_missing',
      'lines.0.description',
    );
  });

  it('does not see invoices of another tenant or the other environment (404)', async () => {
    const other = await tenantApi(server);
    const theirs = await openInvoice(other.api, {
      customerId: (await createCustomer(other.api)).id,
    });
    const live = client(
      server.url,
      (await createTenantWithKey(server.db, { tenantId: key.tenantId, environment: 'live' }))
        .secret,
    );
    const liveInvoice = await openInvoice(live, {
      customerId: (await createCustomer(live)).id,
    });
    for (const id of [theirs.id, liveInvoice.id, 'inv_unknown']) {
      await refused(create({ invoiceId: id, amount: 1 }), 404, 'resource_missing', 'invoiceId');
    }
    // Nor their credit notes.
    const note = await credit(other.api, { invoiceId: theirs.id, amount: 1 });
    assertError(await api.get(`/v1/credit-notes/${note.id}`), 404, 'resource_missing');
    await refused(() => api.post(`/v1/credit-notes/${note.id}/void`), 404, 'resource_missing');
    assert.deepEqual((await api.get(`/v1/credit-notes?invoiceId=${theirs.id}`)).body.data, []);
    assert.equal((await other.api.get(`/v1/credit-notes/${note.id}`)).body.status, 'issued');
  });

  it('leaves no gap in the numbers after all these refusals', async () => {
    const note = await credit(api, { invoiceId: open.id, amount: 100 });
    assert.equal(note.number, 'CN-000001');
  });
});
