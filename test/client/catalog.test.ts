import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BillingApiError,
  BillingClient,
  type Price,
  type Product,
} from '../../clients/typescript/src/index.ts';
import { createTenantWithKey, startTestApp } from '../helpers.ts';

// The typed client's products and prices against the real server.

const server = await startTestApp();
const { secret } = await createTenantWithKey(server.db, {
  scopes: ['subscriptions:read', 'subscriptions:write', 'invoices:write'],
});
const client = new BillingClient({ apiKey: secret, baseUrl: server.url, baseDelayMs: 20 });

describe('the client: products and prices', () => {
  it('creates, reads, changes and lists products and their prices', async () => {
    const vat = await client.taxRates.create({
      displayName: 'VAT',
      percentage: 19,
      inclusive: false,
    });
    const product: Product = await client.products.create({
      name: 'Analytics',
      unitCode: 'HUR',
      taxRates: [vat.id],
    });
    assert.match(product.id, /^prod_/);
    assert.equal((await client.products.get(product.id)).name, 'Analytics');
    const retired = await client.products.update(product.id, { active: false });
    assert.equal(retired.active, false);
    assert.deepEqual(
      (await client.products.list({ active: false })).data.map((p) => p.id),
      [product.id],
    );

    const made: Price[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        await client.prices.create({
          productId: product.id,
          currency: 'eur',
          type: 'recurring',
          recurring: { interval: 'month', intervalCount: i + 1 },
          billingScheme: 'tiered',
          tiersMode: 'graduated',
          tiers: [
            { upTo: 10, unitAmount: 0, flatAmount: 4900 },
            { upTo: null, unitAmountDecimal: '2.5' },
          ],
        }),
      );
    }
    assert.deepEqual(made[0]!.tiers?.[1], {
      upTo: null,
      unitAmount: null,
      unitAmountDecimal: '2.5',
      flatAmount: 0,
    });
    const named = await client.prices.update(made[0]!.id, { nickname: 'Monthly' });
    assert.equal(named.nickname, 'Monthly');
    assert.equal((await client.prices.get(made[0]!.id)).nickname, 'Monthly');
    const seen: string[] = [];
    for await (const price of client.prices.list({ productId: product.id, limit: 2 })) {
      seen.push(price.id);
    }
    assert.deepEqual(seen, made.map((p) => p.id).reverse());
  });

  it('throws the refusal of a change to a price’s amount, typed, naming the field', async () => {
    const product = await client.products.create({ name: 'Seats' });
    const price = await client.prices.create({
      productId: product.id,
      currency: 'eur',
      type: 'one_time',
      unitAmount: 1500,
    });
    const refused = await client.prices
      .update(price.id, { unitAmount: 1600 } as never)
      .catch((e: unknown) => e);
    assert.ok(refused instanceof BillingApiError);
    assert.equal(refused.code, 'parameter_invalid');
    assert.equal(refused.param, 'unitAmount');
    assert.equal((await client.prices.get(price.id)).unitAmount, 1500);
  });
});
