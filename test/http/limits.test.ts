import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, client, createTenantWithKey, startTestApp, type ApiResponse } from '../helpers.ts';

const server = await startTestApp();
const key = await createTenantWithKey(server.db, { scopes: ['customers:read', 'customers:write'] });
const api = client(server.url, key.secret);
const existing = await api.post('/v1/customers', {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  metadata: { plan: 'gold' },
});
assert.equal(existing.status, 201);
const customerId: string = existing.body.id;

/** Everything the tenant has that a write could have touched. */
async function snapshot(): Promise<unknown> {
  const { rows } = await server.db.query(
    `SELECT (SELECT json_agg(c ORDER BY c.id) FROM customers c WHERE c.tenant_id = $1) AS customers,
            (SELECT count(*)::int FROM events WHERE tenant_id = $1) AS events,
            (SELECT count(*)::int FROM idempotency_keys WHERE tenant_id = $1) AS idempotency`,
    [key.tenantId],
  );
  return rows[0];
}

function assertRefused(res: ApiResponse, status: number, code: string, param?: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
  if (param !== undefined) assert.equal(res.body.error.param, param, res.text);
  assert.equal(typeof res.body.error.message, 'string');
  assert.equal(res.body.error.requestId, res.headers.get('request-id'));
}

let idempotencyCounter = 0;
/** Sends a write both as a create and as an update, each with an Idempotency-Key. */
async function refuseWrite(body: unknown, status: number, code: string, param?: string) {
  const before = await snapshot();
  for (const [method, path] of [
    ['POST', '/v1/customers'],
    ['PATCH', `/v1/customers/${customerId}`],
  ] as const) {
    const res = await call(server.url, method, path, {
      key: key.secret,
      ...(typeof body === 'string' ? { rawBody: body } : { body }),
      headers: {
        'content-type': 'application/json',
        'idempotency-key': `limits-${++idempotencyCounter}`,
      },
    });
    assertRefused(res, status, code, param);
  }
  assert.deepEqual(await snapshot(), before, 'a refused request changes nothing');
}

describe('limits of the contract', () => {
  it('refuses a body over 1 MiB with 413 body_too_large', async () => {
    const big = JSON.stringify({ name: 'x', description: 'y'.repeat(1024 * 1024) });
    await refuseWrite(big, 413, 'body_too_large');
  });

  it('accepts metadata at its limits: 50 keys of 40 characters, values of 500', async () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [String(i).padStart(40, 'k'), 'v'.repeat(500)]),
    );
    const res = await api.patch(`/v1/customers/${customerId}`, { metadata });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.metadata, metadata);
  });

  it('refuses metadata over its limits with parameter_invalid', async () => {
    const keys51 = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    await refuseWrite({ metadata: keys51 }, 400, 'parameter_invalid', 'metadata');
    await refuseWrite(
      { metadata: { ['k'.repeat(41)]: 'v' } },
      400,
      'parameter_invalid',
      'metadata',
    );
    await refuseWrite({ metadata: { '': 'v' } }, 400, 'parameter_invalid', 'metadata');
    await refuseWrite({ metadata: { k: 'v'.repeat(501) } }, 400, 'parameter_invalid', 'metadata.k');
    await refuseWrite({ metadata: { k: 1 } }, 400, 'parameter_invalid', 'metadata.k');
    await refuseWrite({ metadata: { k: { nested: 'v' } } }, 400, 'parameter_invalid', 'metadata.k');
    await refuseWrite({ metadata: ['v'] }, 400, 'parameter_invalid', 'metadata');
  });

  it('refuses strings over their length with parameter_invalid naming the field', async () => {
    await refuseWrite({ name: 'n'.repeat(257) }, 400, 'parameter_invalid', 'name');
    await refuseWrite({ name: '' }, 400, 'parameter_invalid', 'name');
    await refuseWrite({ description: 'd'.repeat(1001) }, 400, 'parameter_invalid', 'description');
    await refuseWrite(
      { address: { line1: 'l'.repeat(201) } },
      400,
      'parameter_invalid',
      'address.line1',
    );
    await refuseWrite(
      { taxIds: [{ type: 'eu_vat', value: 'v'.repeat(65) }] },
      400,
      'parameter_invalid',
      'taxIds.0.value',
    );
  });

  it('refuses fields of the wrong type with parameter_invalid', async () => {
    await refuseWrite({ name: 42 }, 400, 'parameter_invalid', 'name');
    await refuseWrite({ email: ['a@example.com'] }, 400, 'parameter_invalid', 'email');
    await refuseWrite({ address: 'Main Street 1' }, 400, 'parameter_invalid', 'address');
  });

  it('refuses unknown fields, at any depth, with parameter_invalid naming them', async () => {
    await refuseWrite({ name: 'x', nickname: 'y' }, 400, 'parameter_invalid', 'nickname');
    await refuseWrite({ address: { street: 'x' } }, 400, 'parameter_invalid', 'address.street');
    await refuseWrite(
      { taxIds: [{ type: 'eu_vat', value: 'DE1', verified: true }] },
      400,
      'parameter_invalid',
      'taxIds.0.verified',
    );
  });

  it('refuses unknown fields on every write, DELETE included, before anything is looked up', async () => {
    const everyScope = await createTenantWithKey(server.db);
    const openapi = await call(server.url, 'GET', '/v1/openapi.json');
    const writes: string[] = [];
    for (const [template, operations] of Object.entries<Record<string, unknown>>(
      openapi.body.paths,
    )) {
      for (const method of Object.keys(operations)) {
        if (method === 'get') continue;
        const path = template.replace(/\{\w+\}/g, 'x_1');
        const res = await call(server.url, method.toUpperCase(), path, {
          key: everyScope.secret,
          body: { unexpectedField: 1 },
        });
        assert.equal(res.status, 400, `${method} ${path}: ${res.text}`);
        assert.ok(
          ['parameter_invalid', 'parameter_missing'].includes(res.body.error.code),
          `${method} ${path}: ${res.text}`,
        );
        writes.push(`${method.toUpperCase()} ${template}`);
      }
    }
    assert.ok(writes.includes('DELETE /v1/invoices/{id}'));
    assert.ok(writes.includes('DELETE /v1/invoices/{id}/lines/{lineId}'));
    assert.ok(writes.includes('DELETE /v1/webhook-endpoints/{id}'));
  });

  it('takes a DELETE with no body or an empty one, and refuses one with fields', async () => {
    const everyScope = await createTenantWithKey(server.db);
    const invoices = client(server.url, everyScope.secret);
    const buyer = await invoices.post('/v1/customers', { name: 'Buyer' });
    const draft = async () => {
      const res = await invoices.post('/v1/invoices', {
        customerId: buyer.body.id,
        currency: 'eur',
        lines: [{ description: 'Thing', unitAmount: 100 }],
      });
      assert.equal(res.status, 201, res.text);
      return res.body.id as string;
    };
    const refused = await draft();
    const remove = (id: string, options: { body?: unknown; rawBody?: string }) =>
      call(server.url, 'DELETE', `/v1/invoices/${id}`, {
        key: everyScope.secret,
        ...options,
        ...(options.rawBody === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' } }),
      });
    assertRefused(
      await remove(refused, { body: { force: true } }),
      400,
      'parameter_invalid',
      'force',
    );
    assert.equal((await invoices.get(`/v1/invoices/${refused}`)).status, 200, 'still there');
    for (const options of [{}, { body: {} }, { rawBody: '' }]) {
      const res = await remove(await draft(), options);
      assert.equal(res.status, 200, `${JSON.stringify(options)}: ${res.text}`);
      assert.equal(res.body.deleted, true);
    }
  });

  it('stores nothing for a refused request, so the same Idempotency-Key works once fixed', async () => {
    const headers = { 'idempotency-key': 'fix-and-retry' };
    const refused = await api.post('/v1/customers', { name: 'x', nickname: 'y' }, headers);
    assertRefused(refused, 400, 'parameter_invalid', 'nickname');
    const fixed = await api.post('/v1/customers', { name: 'x' }, headers);
    assert.equal(fixed.status, 201, fixed.text);
    assert.equal(fixed.headers.get('idempotent-replayed'), null);
  });

  it('refuses query parameters that are out of range, of the wrong form, repeated or unknown', async () => {
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=1e2', 'limit'],
      ['limit=%207', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=', 'limit'],
      ['limit=5&limit=6', 'limit'],
      ['limit=007', 'limit'],
      ['limit=%2B5', 'limit'],
      ['limit=99999999999999999999', 'limit'],
      ['email=a@example.com&email=b@example.com', 'email'],
      [`email=${'e'.repeat(513)}`, 'email'],
      ['sort=name', 'sort'],
    ]) {
      assertRefused(await api.get(`/v1/customers?${query}`), 400, 'parameter_invalid', param);
    }
    assertRefused(
      await api.get(`/v1/customers/${customerId}?expand=all`),
      400,
      'parameter_invalid',
      'expand',
    );
  });

  it('reads a boolean query parameter from true or false only', async () => {
    const rates = client(
      server.url,
      (await createTenantWithKey(server.db, { scopes: ['invoices:read'] })).secret,
    );
    for (const active of ['TRUE', '1', 'yes', '', 'true&active=false']) {
      assertRefused(
        await rates.get(`/v1/tax-rates?active=${active}`),
        400,
        'parameter_invalid',
        'active',
      );
    }
    for (const active of ['true', 'false']) {
      const res = await rates.get(`/v1/tax-rates?active=${active}`);
      assert.equal(res.status, 200, res.text);
    }
  });

  it('says what a page size is when it refuses one', async () => {
    const res = await api.get('/v1/customers?limit=1e2');
    assert.match(res.body.error.message, /an integer from 1 to 100/);
  });

  it('accepts limit at both ends of its range', async () => {
    for (const limit of ['1', '100']) {
      const res = await api.get(`/v1/customers?limit=${limit}`);
      assert.equal(res.status, 200, res.text);
    }
  });
});
