import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey } from '../helpers.ts';
import { assertError, createTaxRate, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { createProduct } from './fixtures.ts';

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);

const productCount = async (tenantId = key.tenantId) =>
  (
    await server.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM products WHERE tenant_id = $1',
      [tenantId],
    )
  ).rows[0]!.n;

describe('products', () => {
  it('creates a product with every field and reads it back', async () => {
    const vat = await createTaxRate(api, { percentage: 19 });
    const created = await api.post('/v1/products', {
      name: 'Analytics, Pro plan',
      description: 'Dashboards and exports',
      unitCode: 'HUR',
      taxRates: [vat.id],
      active: false,
      metadata: { plan: 'pro' },
    });
    assert.equal(created.status, 201, created.text);
    const product = created.body;
    assert.match(product.id, /^prod_/);
    assert.deepEqual(
      { ...product, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        object: 'product',
        name: 'Analytics, Pro plan',
        description: 'Dashboards and exports',
        unitCode: 'HUR',
        taxRates: [vat.id],
        active: false,
        metadata: { plan: 'pro' },
        environment: 'test',
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    assert.deepEqual((await api.get(`/v1/products/${product.id}`)).body, product);
  });

  it('defaults to unit C62, no tax rates, active', async () => {
    const product = await createProduct(api, { name: 'Seat' });
    assert.equal(product.unitCode, 'C62');
    assert.deepEqual(product.taxRates, []);
    assert.equal(product.active, true);
    assert.equal(product.description, null);
    assert.deepEqual(product.metadata, {});
  });

  it('lists products newest first, by activity if asked, page by page', async () => {
    const { api: own } = await tenantApi(server);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createProduct(own, { active: i % 2 === 0 }));
    const all = await own.get('/v1/products');
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(
      all.body.data.map((p: { id: string }) => p.id),
      made.map((p) => p.id).reverse(),
    );
    assert.equal(all.body.nextCursor, null);
    const active = await own.get('/v1/products?active=true&limit=2');
    assert.deepEqual(
      active.body.data.map((p: { id: string }) => p.id),
      [made[4]!.id, made[2]!.id],
    );
    const next = await own.get(`/v1/products?active=true&limit=2&cursor=${active.body.nextCursor}`);
    assert.deepEqual(
      next.body.data.map((p: { id: string }) => p.id),
      [made[0]!.id],
    );
    assert.equal(next.body.nextCursor, null);
    const inactive = await own.get('/v1/products?active=false');
    assert.deepEqual(
      inactive.body.data.map((p: { id: string }) => p.id),
      [made[3]!.id, made[1]!.id],
    );
    // A cursor belongs to its filter.
    assertError(
      await own.get(`/v1/products?active=false&cursor=${active.body.nextCursor}`),
      400,
      'cursor_invalid',
      'cursor',
    );
    assertError(await own.get('/v1/products?active=yes'), 400, 'parameter_invalid', 'active');
  });

  it('changes only the fields a PATCH names; null clears description and metadata', async () => {
    const vat = await createTaxRate(api, { percentage: 19 });
    const reduced = await createTaxRate(api, { percentage: 7 });
    const product = await createProduct(api, {
      description: 'old',
      metadata: { a: '1' },
      taxRates: [vat.id],
    });
    const renamed = await api.patch(`/v1/products/${product.id}`, { name: 'Analytics 2' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(
      { ...renamed.body, updatedAt: undefined },
      { ...product, name: 'Analytics 2', updatedAt: undefined },
    );
    const changed = await api.patch(`/v1/products/${product.id}`, {
      description: null,
      metadata: null,
      unitCode: 'MON',
      taxRates: [reduced.id],
      active: false,
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.description, null);
    assert.deepEqual(changed.body.metadata, {});
    assert.equal(changed.body.unitCode, 'MON');
    assert.deepEqual(changed.body.taxRates, [reduced.id]);
    assert.equal(changed.body.active, false);
    assert.deepEqual((await api.get(`/v1/products/${product.id}`)).body, changed.body);
  });

  it('keeps a tax rate made inactive, but refuses an inactive rate newly named', async () => {
    const rate = await createTaxRate(api, { percentage: 10 });
    const product = await createProduct(api, { taxRates: [rate.id] });
    await api.patch(`/v1/tax-rates/${rate.id}`, { active: false });
    const kept = await api.patch(`/v1/products/${product.id}`, {
      taxRates: [rate.id],
      name: 'Still taxed',
    });
    assert.equal(kept.status, 200, kept.text);
    assertError(
      await api.post('/v1/products', { name: 'New', taxRates: [rate.id] }),
      400,
      'parameter_invalid',
      'taxRates',
    );
  });

  it('refuses bad products with the envelope and creates nothing', async () => {
    const before = await productCount();
    const inclusive = await createTaxRate(api, { percentage: 19, inclusive: true });
    const exclusive = await createTaxRate(api, { percentage: 7 });
    const { api: stranger } = await tenantApi(server);
    const foreignRate = await createTaxRate(stranger, { percentage: 19 });
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{}, 400, 'parameter_missing', 'name'],
      [{ name: '' }, 400, 'parameter_invalid', 'name'],
      [{ name: 'x', unitCode: 'c62' }, 400, 'parameter_invalid', 'unitCode'],
      [{ name: 'x', unitCode: 'HOURS' }, 400, 'parameter_invalid', 'unitCode'],
      [{ name: 'x', taxRates: ['txr_missing'] }, 404, 'resource_missing', 'taxRates'],
      [{ name: 'x', taxRates: [foreignRate.id] }, 404, 'resource_missing', 'taxRates'],
      [{ name: 'x', taxRates: [inclusive.id, exclusive.id] }, 400, 'parameter_invalid', 'taxRates'],
      [{ name: 'x', taxRates: [exclusive.id, exclusive.id] }, 400, 'parameter_invalid', 'taxRates'],
      [{ name: 'x', price: 100 }, 400, 'parameter_invalid', 'price'],
      [{ name: 'x', active: 'yes' }, 400, 'parameter_invalid', 'active'],
    ];
    for (const [body, status, code, param] of cases) {
      assertError(await api.post('/v1/products', body), status, code, param);
    }
    assert.equal(await productCount(), before);
  });

  it('refuses a bad PATCH and changes nothing', async () => {
    const product = await createProduct(api, { metadata: { a: '1' } });
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ name: null }, 400, 'parameter_invalid', 'name'],
      [{ unitCode: null }, 400, 'parameter_invalid', 'unitCode'],
      [{ name: 'x', taxRates: ['txr_missing'] }, 404, 'resource_missing', 'taxRates'],
      [{ name: 'x', id: 'prod_other' }, 400, 'parameter_invalid', 'id'],
    ];
    for (const [body, status, code, param] of cases) {
      assertError(await api.patch(`/v1/products/${product.id}`, body), status, code, param);
    }
    assert.deepEqual((await api.get(`/v1/products/${product.id}`)).body, product);
  });

  it("answers 404 for another tenant's product, and for another environment's", async () => {
    const product = await createProduct(api);
    const { api: stranger } = await tenantApi(server);
    assertError(await stranger.get(`/v1/products/${product.id}`), 404, 'resource_missing');
    assertError(
      await stranger.patch(`/v1/products/${product.id}`, { name: 'Mine' }),
      404,
      'resource_missing',
    );
    assert.deepEqual((await stranger.get('/v1/products')).body.data, []);
    const live = await createTenantWithKey(server.db, {
      tenantId: key.tenantId,
      environment: 'live',
    });
    assertError(
      await client(server.url, live.secret).get(`/v1/products/${product.id}`),
      404,
      'resource_missing',
    );
    assert.equal((await api.get(`/v1/products/${product.id}`)).body.name, product.name);
  });

  it('needs subscriptions:write to change and subscriptions:read to read', async () => {
    const product = await createProduct(api);
    const before = await productCount();
    const { api: reader } = await tenantApi(server, {
      tenantId: key.tenantId,
      scopes: ['subscriptions:read', 'invoices:write', 'customers:write'],
    });
    for (const res of [
      await reader.post('/v1/products', { name: 'x' }),
      await reader.patch(`/v1/products/${product.id}`, { name: 'x' }),
    ]) {
      assertError(res, 403, 'scope_insufficient');
      assert.equal(res.body.error.requiredScope, 'subscriptions:write');
    }
    assert.equal((await reader.get(`/v1/products/${product.id}`)).status, 200);
    const { api: writer } = await tenantApi(server, {
      tenantId: key.tenantId,
      scopes: ['subscriptions:write'],
    });
    for (const res of [
      await writer.get(`/v1/products/${product.id}`),
      await writer.get('/v1/products'),
    ]) {
      assertError(res, 403, 'scope_insufficient');
      assert.equal(res.body.error.requiredScope, 'subscriptions:read');
    }
    assert.equal(await productCount(), before);
    assert.equal((await api.get(`/v1/products/${product.id}`)).body.name, product.name);
  });
});
