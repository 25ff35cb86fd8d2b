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
const { api: owner, key } = await tenantApi(server);
// The same tenant's other environment, and another tenant with every scope.
const { api: otherEnvironment } = await tenantApi(server, {
  tenantId: key.tenantId,
  environment: 'live',
});
const { api: otherTenant } = await tenantApi(server);
const strangers: [string, Api][] = [
  ['another tenant', otherTenant],
  ['the other environment', otherEnvironment],
];

const customer = await createCustomer(owner);
const rate = await createTaxRate(owner, { percentage: 19 });
const draft = await createInvoice(owner, {
  customerId: customer.id,
  defaultTaxRates: [rate.id],
  lines: [{ description: 'x', unitAmount: 100 }],
});
const open = await createInvoice(owner, {
  customerId: customer.id,
  lines: [{ description: 'y', unitAmount: 100 }],
});
assert.equal((await owner.post(`/v1/invoices/${open.id}/issue`)).status, 200);
const snapshot = async () => ({
  draft: (await owner.get(`/v1/invoices/${draft.id}`)).body,
  open: (await owner.get(`/v1/invoices/${open.id}`)).body,
  rate: (await owner.get(`/v1/tax-rates/${rate.id}`)).body,
});
const before = await snapshot();

const lineId = draft.lines[0].id;
const requests: [string, (api: Api) => Promise<any>][] = [
  ['GET invoice', (api) => api.get(`/v1/invoices/${draft.id}`)],
  ['PATCH invoice', (api) => api.patch(`/v1/invoices/${draft.id}`, { memo: 'mine now' })],
  [
    'PATCH issued invoice metadata',
    (api) => api.patch(`/v1/invoices/${open.id}`, { metadata: { a: 'b' } }),
  ],
  ['DELETE invoice', (api) => api.delete(`/v1/invoices/${draft.id}`)],
  [
    'POST line',
    (api) => api.post(`/v1/invoices/${draft.id}/lines`, { description: 'z', unitAmount: 1 }),
  ],
  ['DELETE line', (api) => api.delete(`/v1/invoices/${draft.id}/lines/${lineId}`)],
  ['issue', (api) => api.post(`/v1/invoices/${draft.id}/issue`)],
  ['pay', (api) => api.post(`/v1/invoices/${open.id}/pay`)],
  ['void', (api) => api.post(`/v1/invoices/${open.id}/void`)],
  ['mark-uncollectible', (api) => api.post(`/v1/invoices/${open.id}/mark-uncollectible`)],
  ['send', (api) => api.post(`/v1/invoices/${open.id}/send`)],
  ['PDF', (api) => api.get(`/v1/invoices/${open.id}/pdf`)],
  ['GET tax rate', (api) => api.get(`/v1/tax-rates/${rate.id}`)],
  ['PATCH tax rate', (api) => api.patch(`/v1/tax-rates/${rate.id}`, { active: false })],
];

describe('isolation of invoices and tax rates', () => {
  for (const [who, api] of strangers) {
    for (const [name, request] of requests) {
      it(`answers ${name} from ${who} with 404 resource_missing`, async () => {
        assertError(await request(api), 404, 'resource_missing');
      });
    }

    it(`refuses ${who} the owner's customer and tax rate on a new invoice`, async () => {
      assertError(
        await api.post('/v1/invoices', { customerId: customer.id, currency: 'eur' }),
        404,
        'resource_missing',
        'customerId',
      );
      const own = await createCustomer(api);
      assertError(
        await api.post('/v1/invoices', {
          customerId: own.id,
          currency: 'eur',
          defaultTaxRates: [rate.id],
        }),
        404,
        'resource_missing',
        'defaultTaxRates',
      );
      const mine = await createInvoice(api, { customerId: own.id });
      assertError(
        await api.post(`/v1/invoices/${mine.id}/lines`, {
          description: 'x',
          unitAmount: 1,
          taxRates: [rate.id],
        }),
        404,
        'resource_missing',
        'taxRates',
      );
    });

    it(`lists none of the owner's invoices and tax rates to ${who}`, async () => {
      const invoices = await api.get('/v1/invoices?limit=100');
      assert.equal(invoices.status, 200);
      assert.ok(!invoices.body.data.some((i: any) => [draft.id, open.id].includes(i.id)));
      const filtered = await api.get(`/v1/invoices?customerId=${customer.id}`);
      assert.deepEqual(filtered.body.data, []);
      const rates = await api.get('/v1/tax-rates?limit=100');
      assert.ok(!rates.body.data.some((r: any) => r.id === rate.id));
    });
  }

  it('left everything of the owner as it was', async () => {
    assert.deepEqual(await snapshot(), before);
  });
});
