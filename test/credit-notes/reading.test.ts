// Reading credit notes (retrieve, list, paging), their numbers, the OpenAPI document,
// idempotent creation and the scopes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey, setSettings } from '../helpers.ts';
import {
  assertError,
  credit,
  getInvoice,
  seller as sellerOn,
  startInvoiceApp,
} from './fixtures.ts';

const server = await startInvoiceApp();
const seller = () => sellerOn(server);

describe('reading credit notes', () => {
  it('lists credit notes newest first, by invoice, page by page', async () => {
    const { api, invoice } = await seller();
    const [a, b] = [await invoice(), await invoice()];
    const made = [];
    for (const inv of [a, b, a, b, a])
      made.push(await credit(api, { invoiceId: inv.id, amount: 100 }));
    const all = (await api.get('/v1/credit-notes')).body;
    const newestFirst = [...made].sort((x, y) =>
      x.createdAt !== y.createdAt ? (x.createdAt < y.createdAt ? 1 : -1) : x.id < y.id ? 1 : -1,
    );
    assert.deepEqual(all.data, newestFirst);
    assert.equal(all.nextCursor, null);
    const seen: string[] = [];
    let path = `/v1/credit-notes?invoiceId=${a.id}&limit=2`;
    for (;;) {
      const page = await api.get(path);
      assert.equal(page.status, 200, page.text);
      seen.push(...page.body.data.map((n: { id: string }) => n.id));
      if (!page.body.nextCursor) break;
      path = `/v1/credit-notes?invoiceId=${a.id}&limit=2&cursor=${page.body.nextCursor}`;
    }
    assert.deepEqual(
      seen,
      newestFirst.filter((n) => n.invoiceId === a.id).map((n) => n.id),
    );
    const firstPage = (await api.get(`/v1/credit-notes?invoiceId=${a.id}&limit=1`)).body;
    assertError(
      await api.get(`/v1/credit-notes?invoiceId=${b.id}&cursor=${firstPage.nextCursor}`),
      400,
      'cursor_invalid',
    );
    assertError(await api.get('/v1/credit-notes?limit=0'), 400, 'parameter_invalid', 'limit');
    assertError(await api.get('/v1/credit-notes/cn_unknown'), 404, 'resource_missing');
  });

  it('numbers credit notes with the tenant’s prefix, apart from invoices', async () => {
    const { api, key, invoice } = await seller();
    const inv = await invoice();
    assert.equal((await credit(api, { invoiceId: inv.id, amount: 1 })).number, 'CN-000001');
    await setSettings(server.db, key.tenantId, { creditNotePrefix: 'GS-' });
    assert.equal((await credit(api, { invoiceId: inv.id, amount: 1 })).number, 'GS-000002');
    assert.equal(inv.number, 'INV-000001');
  });
});

describe('the OpenAPI document', () => {
  it('describes the credit-note routes from their schemas', async () => {
    const doc = (await fetch(`${server.url}/v1/openapi.json`).then((r) => r.json())) as any;
    const create = doc.paths['/v1/credit-notes'].post;
    const ref: string = create.requestBody.content['application/json'].schema.$ref;
    const body = doc.components.schemas[ref.split('/').at(-1)!];
    assert.deepEqual(Object.keys(body.properties).sort(), [
      'amount',
      'invoiceId',
      'lines',
      'memo',
      'metadata',
      'reason',
    ]);
    assert.ok(create.responses['201']);
    assert.ok(
      doc.paths['/v1/credit-notes'].get.parameters.some((p: any) => p.name === 'invoiceId'),
    );
    assert.ok(doc.paths['/v1/credit-notes/{id}'].get);
    assert.ok(doc.paths['/v1/credit-notes/{id}/void'].post.responses['409']);
  });
});

describe('idempotency and scopes', () => {
  it('replays a repeated creation with the same key and creates one credit note', async () => {
    const { api, invoice } = await seller();
    const inv = await invoice();
    const body = { invoiceId: inv.id, amount: 2500 };
    const headers = { 'idempotency-key': 'credit-2500' };
    const first = await api.post('/v1/credit-notes', body, headers);
    const again = await api.post('/v1/credit-notes', body, headers);
    assert.equal(first.status, 201, first.text);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    const list = (await api.get(`/v1/credit-notes?invoiceId=${inv.id}`)).body.data;
    assert.equal(list.length, 1);
    assert.equal((await getInvoice(api, inv.id)).amountCredited, 2500);
    assertError(
      await api.post('/v1/credit-notes', { ...body, amount: 2600 }, headers),
      422,
      'idempotency_key_reused',
    );
  });

  it('needs invoices:write to create and void, and invoices:read to read', async () => {
    const { api, key, invoice } = await seller();
    const inv = await invoice();
    const note = await credit(api, { invoiceId: inv.id, amount: 100 });
    const reader = client(
      server.url,
      (await createTenantWithKey(server.db, { tenantId: key.tenantId, scopes: ['invoices:read'] }))
        .secret,
    );
    const writer = client(
      server.url,
      (await createTenantWithKey(server.db, { tenantId: key.tenantId, scopes: ['invoices:write'] }))
        .secret,
    );
    const refused = await reader.post('/v1/credit-notes', { invoiceId: inv.id, amount: 100 });
    assertError(refused, 403, 'scope_insufficient');
    assert.equal(refused.body.error.requiredScope, 'invoices:write');
    assertError(await reader.post(`/v1/credit-notes/${note.id}/void`), 403, 'scope_insufficient');
    assert.equal((await reader.get(`/v1/credit-notes/${note.id}`)).status, 200);
    assertError(await writer.get(`/v1/credit-notes/${note.id}`), 403, 'scope_insufficient');
    assertError(await writer.get('/v1/credit-notes'), 403, 'scope_insufficient');
    assert.equal((await writer.post(`/v1/credit-notes/${note.id}/void`)).status, 200);
  });
});
