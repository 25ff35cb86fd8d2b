import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertError,
  createCustomer,
  createInvoice,
  createTaxRate,
  startInvoiceApp,
  tenantApi,
} from '../invoices/fixtures.ts';

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);

describe('tax rates', () => {
  it('creates a rate with every field and reads it back', async () => {
    const created = await api.post('/v1/tax-rates', {
      displayName: 'Sales tax',
      percentage: 8.875,
      inclusive: false,
      taxType: 'sales_tax',
      country: 'US',
      state: 'NY',
      jurisdiction: 'New York City',
      description: 'NYC combined rate',
      metadata: { source: 'nys' },
    });
    assert.equal(created.status, 201, created.text);
    const rate = created.body;
    assert.match(rate.id, /^txr_/);
    assert.deepEqual(
      { ...rate, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        object: 'tax_rate',
        displayName: 'Sales tax',
        percentage: 8.875,
        inclusive: false,
        taxType: 'sales_tax',
        category: 'S',
        exemptionReason: null,
        country: 'US',
        state: 'NY',
        jurisdiction: 'New York City',
        description: 'NYC combined rate',
        active: true,
        metadata: { source: 'nys' },
        environment: 'test',
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    assert.deepEqual((await api.get(`/v1/tax-rates/${rate.id}`)).body, rate);
    // Stored exactly, as a decimal.
    const { rows } = await server.db.query(
      'SELECT percentage::text AS p FROM tax_rates WHERE tenant_id = $1 AND id = $2',
      [key.tenantId, rate.id],
    );
    assert.equal(rows[0].p, '8.8750');
    const minimal = await createTaxRate(api, { percentage: 0 });
    assert.equal((await api.get(`/v1/tax-rates/${minimal.id}`)).body.taxType, null);
  });

  it('refuses percentages outside 0 ≤ p < 100 or with more than 4 decimals', async () => {
    for (const percentage of [100, 100.5, -1, 8.87501, 0.00001, '8.875', null]) {
      const res = await api.post('/v1/tax-rates', {
        displayName: 'VAT',
        inclusive: false,
        percentage,
      });
      assertError(res, 400, 'parameter_invalid', 'percentage');
    }
    for (const percentage of [0, 0.0001, 99.9999, 7.7]) {
      const ok = await api.post('/v1/tax-rates', {
        displayName: 'VAT',
        inclusive: true,
        percentage,
      });
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.percentage, percentage);
    }
  });

  it('refuses missing and malformed fields with the envelope', async () => {
    const base = { displayName: 'VAT', inclusive: false, percentage: 19 };
    const { displayName: _d, ...noName } = base;
    assertError(await api.post('/v1/tax-rates', noName), 400, 'parameter_missing', 'displayName');
    const { inclusive: _i, ...noInclusive } = base;
    assertError(
      await api.post('/v1/tax-rates', noInclusive),
      400,
      'parameter_missing',
      'inclusive',
    );
    const { percentage: _p, ...noPercentage } = base;
    assertError(
      await api.post('/v1/tax-rates', noPercentage),
      400,
      'parameter_missing',
      'percentage',
    );
    assertError(
      await api.post('/v1/tax-rates', { ...base, taxType: 'vat_plus' }),
      400,
      'parameter_invalid',
      'taxType',
    );
    for (const country of ['de', 'XX', 'DEU']) {
      assertError(
        await api.post('/v1/tax-rates', { ...base, country }),
        400,
        'parameter_invalid',
        'country',
      );
    }
    assertError(
      await api.post('/v1/tax-rates', { ...base, rate: 1 }),
      400,
      'parameter_invalid',
      'rate',
    );
  });

  it('changes the descriptive fields and never the tax terms', async () => {
    const rate = await createTaxRate(api, {
      displayName: 'VAT',
      percentage: 19,
      taxType: 'vat',
      country: 'DE',
      description: 'Standard',
    });
    const patched = await api.patch(`/v1/tax-rates/${rate.id}`, {
      displayName: 'MwSt',
      description: null,
      jurisdiction: 'Bund',
      metadata: { k: 'v' },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.displayName, 'MwSt');
    assert.equal(patched.body.description, null);
    assert.equal(patched.body.jurisdiction, 'Bund');
    assert.equal(patched.body.country, 'DE');
    assert.deepEqual(patched.body.metadata, { k: 'v' });
    for (const [param, value] of [
      ['percentage', 16],
      ['percentage', 19.0001],
      ['inclusive', true],
      ['taxType', 'gst'],
      ['taxType', null],
    ] as const) {
      assertError(
        await api.patch(`/v1/tax-rates/${rate.id}`, { [param]: value }),
        400,
        'parameter_invalid',
        param,
      );
    }
    // Sending back the values it has is fine (a client PATCHing what it read).
    const same = await api.patch(`/v1/tax-rates/${rate.id}`, {
      percentage: 19,
      inclusive: false,
      taxType: 'vat',
    });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.percentage, 19);
    assertError(
      await api.patch('/v1/tax-rates/txr_missing', { active: false }),
      404,
      'resource_missing',
    );
  });

  it('writes tax_rate.created and tax_rate.updated events', async () => {
    const rate = await createTaxRate(api, { percentage: 5 });
    await api.patch(`/v1/tax-rates/${rate.id}`, { active: false });
    const { rows } = await server.db.query(
      'SELECT type, data FROM events WHERE tenant_id = $1 AND object_id = $2 ORDER BY created_at, id',
      [key.tenantId, rate.id],
    );
    assert.deepEqual(
      rows.map((r) => r.type),
      ['tax_rate.created', 'tax_rate.updated'],
    );
    assert.equal(rows[1].data.object.active, false);
  });

  it('hides an inactive rate from new use, but not from drafts that carry it', async () => {
    const customer = await createCustomer(api);
    const rate = await createTaxRate(api, { percentage: 10 });
    const carrying = await createInvoice(api, {
      customerId: customer.id,
      defaultTaxRates: [rate.id],
      lines: [{ description: 'x', unitAmount: 1000 }],
    });
    await api.patch(`/v1/tax-rates/${rate.id}`, { active: false });
    assertError(
      await api.post('/v1/invoices', {
        customerId: customer.id,
        currency: 'eur',
        defaultTaxRates: [rate.id],
      }),
      400,
      'parameter_invalid',
      'defaultTaxRates',
    );
    const other = await createInvoice(api, { customerId: customer.id });
    assertError(
      await api.post(`/v1/invoices/${other.id}/lines`, {
        description: 'x',
        unitAmount: 1,
        taxRates: [rate.id],
      }),
      400,
      'parameter_invalid',
      'taxRates',
    );
    // The draft that already had it can still be edited and issued.
    const edited = await api.post(`/v1/invoices/${carrying.id}/lines`, {
      description: 'y',
      unitAmount: 1000,
    });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.body.tax, 200);
    const issued = await api.post(`/v1/invoices/${carrying.id}/issue`);
    assert.equal(issued.status, 200, issued.text);
    assert.equal(issued.body.total, 2200);
  });

  it('lists rates newest first, filtered by active, page by page', async () => {
    const { api: own } = await tenantApi(server);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createTaxRate(own, { percentage: i })).id);
    await own.patch(`/v1/tax-rates/${ids[1]}`, { active: false });
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await own.get(
        `/v1/tax-rates?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.equal(res.status, 200, res.text);
      all.push(...res.body.data.map((r: any) => r.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.deepEqual(all, [...ids].reverse());
    const inactive = await own.get('/v1/tax-rates?active=false');
    assert.deepEqual(
      inactive.body.data.map((r: any) => r.id),
      [ids[1]],
    );
    const active = await own.get('/v1/tax-rates?active=true');
    assert.equal(active.body.data.length, 4);
    assertError(await own.get('/v1/tax-rates?active=yes'), 400, 'parameter_invalid', 'active');
  });

  it('needs invoices:read to read and invoices:write to change', async () => {
    const { api: reader, key: readerKey } = await tenantApi(server, { scopes: ['invoices:read'] });
    const { api: writer } = await tenantApi(server, {
      tenantId: readerKey.tenantId,
      scopes: ['invoices:write'],
    });
    const rate = await createTaxRate(writer, { percentage: 19 });
    assert.equal((await reader.get(`/v1/tax-rates/${rate.id}`)).status, 200);
    assert.equal((await reader.get('/v1/tax-rates')).status, 200);
    assertError(await writer.get(`/v1/tax-rates/${rate.id}`), 403, 'scope_insufficient');
    assertError(await writer.get('/v1/tax-rates'), 403, 'scope_insufficient');
    assertError(
      await reader.post('/v1/tax-rates', { displayName: 'x', percentage: 1, inclusive: false }),
      403,
      'scope_insufficient',
    );
    assertError(
      await reader.patch(`/v1/tax-rates/${rate.id}`, { active: false }),
      403,
      'scope_insufficient',
    );
  });
});
