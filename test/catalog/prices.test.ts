import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getPricesWithProducts } from '../../src/catalog/service.ts';
import { assertError, createTaxRate, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { createPrice, createProduct } from './fixtures.ts';

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const product = await createProduct(api);

const priceCount = async () =>
  (
    await server.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM prices WHERE tenant_id = $1',
      [key.tenantId],
    )
  ).rows[0]!.n;

const stamps = { id: undefined, createdAt: undefined, updatedAt: undefined };
const plain = (price: Record<string, unknown>) => ({ ...price, ...stamps });
const perUnitFields = {
  unitAmount: null,
  unitAmountDecimal: null,
  packageSize: null,
  tiersMode: null,
  tiers: null,
};

describe('prices', () => {
  it('creates a recurring per-unit price with its defaults and reads it back', async () => {
    const price = await createPrice(api, product.id, { nickname: 'Monthly', metadata: { a: 'b' } });
    assert.match(price.id, /^price_/);
    assert.deepEqual(plain(price), {
      ...stamps,
      object: 'price',
      productId: product.id,
      currency: 'eur',
      type: 'recurring',
      recurring: { interval: 'month', intervalCount: 1, usage: 'licensed', meterId: null },
      billingScheme: 'per_unit',
      ...perUnitFields,
      unitAmount: 1500,
      nickname: 'Monthly',
      active: true,
      metadata: { a: 'b' },
      environment: 'test',
    });
    assert.deepEqual((await api.get(`/v1/prices/${price.id}`)).body, price);
  });

  it('takes a decimal unit amount, kept exactly in its shortest form', async () => {
    const price = await createPrice(api, product.id, {
      type: 'one_time',
      recurring: undefined,
      unitAmount: undefined,
      unitAmountDecimal: '0.0250',
    });
    assert.equal(price.recurring, null);
    assert.equal(price.unitAmount, null);
    assert.equal(price.unitAmountDecimal, '0.025');
    const fine = await createPrice(api, product.id, {
      unitAmount: undefined,
      unitAmountDecimal: '123.000000000001',
    });
    assert.equal(
      (await api.get(`/v1/prices/${fine.id}`)).body.unitAmountDecimal,
      '123.000000000001',
    );
  });

  it('creates tiered prices, graduated and volume, with every tier as given', async () => {
    const graduated = await createPrice(api, product.id, {
      unitAmount: undefined,
      billingScheme: 'tiered',
      tiersMode: 'graduated',
      tiers: [
        { upTo: 10, flatAmount: 500 },
        { upTo: 100, unitAmount: 90 },
        { upTo: null, unitAmountDecimal: '80.5', flatAmount: 100 },
      ],
    });
    assert.deepEqual(plain(graduated), {
      ...plain(graduated),
      billingScheme: 'tiered',
      ...perUnitFields,
      tiersMode: 'graduated',
      tiers: [
        { upTo: 10, unitAmount: null, unitAmountDecimal: null, flatAmount: 500 },
        { upTo: 100, unitAmount: 90, unitAmountDecimal: null, flatAmount: 0 },
        { upTo: null, unitAmount: null, unitAmountDecimal: '80.5', flatAmount: 100 },
      ],
    });
    assert.deepEqual((await api.get(`/v1/prices/${graduated.id}`)).body, graduated);
    const volume = await createPrice(api, product.id, {
      unitAmount: undefined,
      billingScheme: 'tiered',
      tiersMode: 'volume',
      tiers: [{ upTo: null, unitAmount: 7 }],
    });
    assert.equal(volume.tiersMode, 'volume');
    assert.deepEqual(volume.tiers, [
      { upTo: null, unitAmount: 7, unitAmountDecimal: null, flatAmount: 0 },
    ]);
  });

  it('creates package prices', async () => {
    const price = await createPrice(api, product.id, {
      billingScheme: 'package',
      unitAmount: 500,
      packageSize: 10,
    });
    assert.equal(price.billingScheme, 'package');
    assert.equal(price.packageSize, 10);
    assert.equal(price.unitAmount, 500);
  });

  it('allows periods of up to one year', async () => {
    for (const [interval, intervalCount] of [
      ['day', 365],
      ['week', 52],
      ['month', 12],
      ['year', 1],
      ['week', 2],
    ] as const) {
      const price = await createPrice(api, product.id, { recurring: { interval, intervalCount } });
      assert.deepEqual(price.recurring, {
        interval,
        intervalCount,
        usage: 'licensed',
        meterId: null,
      });
    }
  });

  it('lists prices newest first, by product and activity, page by page', async () => {
    const { api: own } = await tenantApi(server);
    const [a, b] = [await createProduct(own), await createProduct(own)];
    const a1 = await createPrice(own, a.id);
    const b1 = await createPrice(own, b.id);
    const a2 = await createPrice(own, a.id, { active: false });
    const a3 = await createPrice(own, a.id);
    const ids = async (query: string) => {
      const res = await own.get(`/v1/prices${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((p: { id: string }) => p.id);
    };
    assert.deepEqual(await ids(''), [a3.id, a2.id, b1.id, a1.id]);
    assert.deepEqual(await ids(`?productId=${a.id}`), [a3.id, a2.id, a1.id]);
    assert.deepEqual(await ids(`?productId=${a.id}&active=true`), [a3.id, a1.id]);
    assert.deepEqual(await ids('?active=false'), [a2.id]);
    assert.deepEqual(await ids('?productId=prod_unknown'), []);
    const first = await own.get(`/v1/prices?productId=${a.id}&limit=2`);
    assert.deepEqual(await ids(`?productId=${a.id}&limit=2&cursor=${first.body.nextCursor}`), [
      a1.id,
    ]);
    assertError(
      await own.get(`/v1/prices?productId=${b.id}&limit=2&cursor=${first.body.nextCursor}`),
      400,
      'cursor_invalid',
      'cursor',
    );
  });

  it('changes only active, nickname and metadata; null clears the last two', async () => {
    const price = await createPrice(api, product.id, { nickname: 'n', metadata: { a: '1' } });
    const res = await api.patch(`/v1/prices/${price.id}`, { active: false });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      { ...res.body, updatedAt: undefined },
      {
        ...price,
        active: false,
        updatedAt: undefined,
      },
    );
    const cleared = await api.patch(`/v1/prices/${price.id}`, { nickname: null, metadata: null });
    assert.equal(cleared.body.nickname, null);
    assert.deepEqual(cleared.body.metadata, {});
    assert.equal(cleared.body.active, false);
    assert.equal(cleared.body.unitAmount, 1500);
  });

  it('refuses a PATCH that names an amount or any other term, and changes nothing', async () => {
    const price = await createPrice(api, product.id, { nickname: 'n' });
    for (const [body, param] of [
      [{ unitAmount: 2000 }, 'unitAmount'],
      [{ active: false, unitAmountDecimal: '1.5' }, 'unitAmountDecimal'],
      [{ tiers: [{ upTo: null, unitAmount: 1 }] }, 'tiers'],
      [{ currency: 'usd' }, 'currency'],
      [{ recurring: { interval: 'year' } }, 'recurring'],
      [{ productId: product.id }, 'productId'],
      [{ billingScheme: 'package' }, 'billingScheme'],
      [{ nickname: 'm', colour: 'red' }, 'colour'],
    ] as const) {
      const res = await api.patch(`/v1/prices/${price.id}`, body);
      assertError(res, 400, 'parameter_invalid', param);
    }
    const refused = await api.patch(`/v1/prices/${price.id}`, { unitAmount: 1500 });
    assert.match(refused.body.error.message, /cannot change.*create a new price/i);
    assert.deepEqual((await api.get(`/v1/prices/${price.id}`)).body, price);
  });

  it('refuses bad prices, each naming the field at fault, and creates nothing', async () => {
    const before = await priceCount();
    const { api: stranger } = await tenantApi(server);
    const foreign = await createProduct(stranger);
    const base = {
      productId: product.id,
      currency: 'eur',
      type: 'recurring',
      recurring: { interval: 'month' },
    };
    const tiered = { ...base, billingScheme: 'tiered', tiersMode: 'graduated' };
    const ok = { upTo: null, unitAmount: 1 };
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ ...base }, 400, 'parameter_missing', 'unitAmount'],
      [
        { ...base, unitAmount: 1, unitAmountDecimal: '1' },
        400,
        'parameter_invalid',
        'unitAmountDecimal',
      ],
      [
        { ...base, unitAmountDecimal: '0.0000000000015' },
        400,
        'parameter_invalid',
        'unitAmountDecimal',
      ],
      [{ ...base, unitAmountDecimal: '1e3' }, 400, 'parameter_invalid', 'unitAmountDecimal'],
      [{ ...base, unitAmountDecimal: '-1' }, 400, 'parameter_invalid', 'unitAmountDecimal'],
      [
        { ...base, unitAmountDecimal: '9007199254740992' },
        400,
        'parameter_invalid',
        'unitAmountDecimal',
      ],
      [{ ...base, unitAmountDecimal: 0.5 }, 400, 'parameter_invalid', 'unitAmountDecimal'],
      [{ ...base, unitAmount: 1.5 }, 400, 'parameter_invalid', 'unitAmount'],
      [{ ...base, unitAmount: -1 }, 400, 'parameter_invalid', 'unitAmount'],
      [{ ...base, unitAmount: 1, tiers: [ok] }, 400, 'parameter_invalid', 'tiers'],
      [{ ...base, unitAmount: 1, tiersMode: 'volume' }, 400, 'parameter_invalid', 'tiersMode'],
      [{ ...base, unitAmount: 1, packageSize: 10 }, 400, 'parameter_invalid', 'packageSize'],
      [
        { ...base, billingScheme: 'package', unitAmount: 1 },
        400,
        'parameter_missing',
        'packageSize',
      ],
      [
        { ...base, billingScheme: 'package', unitAmount: 1, packageSize: 0 },
        400,
        'parameter_invalid',
        'packageSize',
      ],
      [
        { ...base, billingScheme: 'package', packageSize: 10 },
        400,
        'parameter_missing',
        'unitAmount',
      ],
      [{ ...base, billingScheme: 'flat' }, 400, 'parameter_invalid', 'billingScheme'],
      [{ ...tiered }, 400, 'parameter_missing', 'tiers'],
      [{ ...tiered, tiers: [] }, 400, 'parameter_invalid', 'tiers'],
      [{ ...base, billingScheme: 'tiered', tiers: [ok] }, 400, 'parameter_missing', 'tiersMode'],
      [{ ...tiered, tiers: [ok], unitAmount: 5 }, 400, 'parameter_invalid', 'unitAmount'],
      [{ ...tiered, tiers: [ok], packageSize: 5 }, 400, 'parameter_invalid', 'packageSize'],
      [
        { ...tiered, tiers: [{ upTo: 10, unitAmount: 1 }] },
        400,
        'parameter_invalid',
        'tiers.0.upTo',
      ],
      [{ ...tiered, tiers: [ok, ok] }, 400, 'parameter_invalid', 'tiers.0.upTo'],
      [
        { ...tiered, tiers: [{ upTo: 10, unitAmount: 1 }, { upTo: 10, unitAmount: 1 }, ok] },
        400,
        'parameter_invalid',
        'tiers.1.upTo',
      ],
      [
        { ...tiered, tiers: [{ upTo: 10, unitAmount: 1 }, { upTo: 5, unitAmount: 1 }, ok] },
        400,
        'parameter_invalid',
        'tiers.1.upTo',
      ],
      [
        { ...tiered, tiers: [{ upTo: 0, unitAmount: 1 }, ok] },
        400,
        'parameter_invalid',
        'tiers.0.upTo',
      ],
      [{ ...tiered, tiers: [{ unitAmount: 1 }] }, 400, 'parameter_missing', 'tiers.0.upTo'],
      [
        { ...tiered, tiers: [{ upTo: null, unitAmount: 1, unitAmountDecimal: '1' }] },
        400,
        'parameter_invalid',
        'tiers.0.unitAmountDecimal',
      ],
      [{ ...tiered, tiers: [{ upTo: null }] }, 400, 'parameter_missing', 'tiers.0.unitAmount'],
      [
        { ...tiered, tiers: [{ upTo: null, unitAmountDecimal: '0.1234567890123' }] },
        400,
        'parameter_invalid',
        'tiers.0.unitAmountDecimal',
      ],
      [
        { ...tiered, tiers: [{ upTo: null, flatAmount: -5 }] },
        400,
        'parameter_invalid',
        'tiers.0.flatAmount',
      ],
      [
        {
          ...tiered,
          tiers: Array.from({ length: 51 }, (_, i) => ({
            upTo: i === 50 ? null : i + 1,
            unitAmount: 1,
          })),
        },
        400,
        'parameter_invalid',
        'tiers',
      ],
      [{ ...base, unitAmount: 1, type: 'one_time' }, 400, 'parameter_invalid', 'recurring'],
      [{ ...base, unitAmount: 1, recurring: undefined }, 400, 'parameter_missing', 'recurring'],
      [
        { ...base, unitAmount: 1, recurring: { interval: 'month', intervalCount: 13 } },
        400,
        'parameter_invalid',
        'recurring.intervalCount',
      ],
      [
        { ...base, unitAmount: 1, recurring: { interval: 'week', intervalCount: 53 } },
        400,
        'parameter_invalid',
        'recurring.intervalCount',
      ],
      [
        { ...base, unitAmount: 1, recurring: { interval: 'day', intervalCount: 366 } },
        400,
        'parameter_invalid',
        'recurring.intervalCount',
      ],
      [
        { ...base, unitAmount: 1, recurring: { interval: 'year', intervalCount: 2 } },
        400,
        'parameter_invalid',
        'recurring.intervalCount',
      ],
      [
        { ...base, unitAmount: 1, recurring: { interval: 'month', intervalCount: 0 } },
        400,
        'parameter_invalid',
        'recurring.intervalCount',
      ],
      [
        { ...base, unitAmount: 1, recurring: { interval: 'hour' } },
        400,
        'parameter_invalid',
        'recurring.interval',
      ],
      [
        { ...base, unitAmount: 1, recurring: { interval: 'month', usage: 'metered' } },
        400,
        'parameter_missing',
        'recurring.meterId',
      ],
      [
        {
          ...base,
          unitAmount: 1,
          recurring: { interval: 'month', usage: 'metered', meterId: 'mtr_missing' },
        },
        404,
        'resource_missing',
        'recurring.meterId',
      ],
      [
        { ...base, unitAmount: 1, recurring: { interval: 'month', meterId: 'mtr_1' } },
        400,
        'parameter_invalid',
        'recurring.meterId',
      ],
      [{ ...base, unitAmount: 1, type: 'weekly' }, 400, 'parameter_invalid', 'type'],
      [{ ...base, unitAmount: 1, currency: 'EUR' }, 400, 'parameter_invalid', 'currency'],
      [{ ...base, unitAmount: 1, currency: 'xyz' }, 400, 'parameter_invalid', 'currency'],
      [{ ...base, unitAmount: 1, productId: 'prod_missing' }, 404, 'resource_missing', 'productId'],
      [{ ...base, unitAmount: 1, productId: foreign.id }, 404, 'resource_missing', 'productId'],
      [{ ...base, unitAmount: 1, amount: 1 }, 400, 'parameter_invalid', 'amount'],
    ];
    for (const [body, status, code, param] of cases) {
      assertError(await api.post('/v1/prices', body), status, code, param);
    }
    assert.equal(await priceCount(), before);
  });

  it("answers 404 for another tenant's price", async () => {
    const price = await createPrice(api, product.id);
    const { api: stranger } = await tenantApi(server);
    assertError(await stranger.get(`/v1/prices/${price.id}`), 404, 'resource_missing');
    assertError(
      await stranger.patch(`/v1/prices/${price.id}`, { active: false }),
      404,
      'resource_missing',
    );
    assert.deepEqual((await stranger.get(`/v1/prices?productId=${product.id}`)).body.data, []);
    assert.equal((await api.get(`/v1/prices/${price.id}`)).body.active, true);
  });

  it('needs subscriptions:write to change and subscriptions:read to read', async () => {
    const price = await createPrice(api, product.id);
    const before = await priceCount();
    const { api: reader } = await tenantApi(server, {
      tenantId: key.tenantId,
      scopes: ['subscriptions:read', 'invoices:write'],
    });
    for (const res of [
      await reader.post('/v1/prices', {
        productId: product.id,
        currency: 'eur',
        type: 'one_time',
        unitAmount: 1,
      }),
      await reader.patch(`/v1/prices/${price.id}`, { active: false }),
    ]) {
      assertError(res, 403, 'scope_insufficient');
      assert.equal(res.body.error.requiredScope, 'subscriptions:write');
    }
    assert.equal((await reader.get(`/v1/prices/${price.id}`)).status, 200);
    const { api: usage } = await tenantApi(server, {
      tenantId: key.tenantId,
      scopes: ['usage:write', 'usage:read'],
    });
    for (const res of [await usage.get(`/v1/prices/${price.id}`), await usage.get('/v1/prices')]) {
      assertError(res, 403, 'scope_insufficient');
      assert.equal(res.body.error.requiredScope, 'subscriptions:read');
    }
    assert.equal(await priceCount(), before);
    assert.equal((await api.get(`/v1/prices/${price.id}`)).body.active, true);
  });
});

describe('prices with their products, for subscriptions', () => {
  it('finds the prices asked for with their products; unknown and foreign ids are absent', async () => {
    const vat = await createTaxRate(api, { percentage: 19 });
    const hours = await createProduct(api, {
      name: 'Support',
      unitCode: 'HUR',
      taxRates: [vat.id],
    });
    const monthly = await createPrice(api, hours.id);
    const yearly = await createPrice(api, hours.id, {
      recurring: { interval: 'year' },
      active: false,
    });
    const { api: stranger } = await tenantApi(server);
    const foreign = await createPrice(stranger, (await createProduct(stranger)).id);
    const found = await getPricesWithProducts(server.db, key, [
      monthly.id,
      yearly.id,
      foreign.id,
      'price_missing',
    ]);
    assert.deepEqual([...found.keys()].sort(), [monthly.id, yearly.id].sort());
    const product = { id: hours.id, name: 'Support', unitCode: 'HUR', taxRates: [vat.id] };
    assert.deepEqual(found.get(monthly.id), { price: monthly, product });
    assert.deepEqual(found.get(yearly.id), { price: yearly, product });
    assert.equal((await getPricesWithProducts(server.db, key, [])).size, 0);
  });
});
