// Products and prices made over the API, for the catalogue's tests (and the subscriptions').
import assert from 'node:assert/strict';
import type { Api } from '../invoices/fixtures.ts';

export async function createProduct(api: Api, body: Record<string, unknown> = {}) {
  const res = await api.post('/v1/products', { name: 'Analytics', ...body });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; [field: string]: unknown };
}

/** A price of `productId`: 15.00 a month per unit unless `body` says otherwise. */
export async function createPrice(api: Api, productId: string, body: Record<string, unknown> = {}) {
  const res = await api.post('/v1/prices', {
    productId,
    currency: 'eur',
    type: 'recurring',
    recurring: { interval: 'month' },
    unitAmount: 1500,
    ...body,
  });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; [field: string]: unknown };
}
