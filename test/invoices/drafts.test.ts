import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertError,
  createCustomer,
  createInvoice,
  startInvoiceApp,
  tenantApi,
} from './fixtures.ts';

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const customer = await createCustomer(api);
const MAX = Number.MAX_SAFE_INTEGER;

const eventsOf = async (invoiceId: string) =>
  (
    await server.db.query(
      `SELECT type FROM events WHERE tenant_id = $1 AND object_id = $2 ORDER BY created_at, id`,
      [key.tenantId, invoiceId],
    )
  ).rows.map((r) => r.type as string);

describe('draft invoices', () => {
  it('creates a draft with lines, memo, due date and metadata, and reads it back', async () => {
    const created = await api.post('/v1/invoices', {
      customerId: customer.id,
      currency: 'eur',
      lines: [
        { description: 'Consulting', quantity: 3, unitAmount: 15000 },
        { description: 'Travel', unitAmount: 4250 },
      ],
      dueDate: '2027-01-31',
      memo: 'Thank you!',
      metadata: { order: '42' },
    });
    assert.equal(created.status, 201, created.text);
    const invoice = created.body;
    assert.match(invoice.id, /^inv_/);
    assert.equal(invoice.object, 'invoice');
    assert.equal(invoice.status, 'draft');
    assert.equal(invoice.number, null);
    assert.equal(invoice.customer, null);
    assert.equal(invoice.environment, 'test');
    assert.deepEqual(
      invoice.lines.map((l: any) => [l.description, l.quantity, l.unitAmount, l.amount]),
      [
        ['Consulting', 3, 15000, 45000],
        ['Travel', 1, 4250, 4250],
      ],
    );
    assert.match(invoice.lines[0].id, /^il_/);
    assert.equal(invoice.subtotal, 49250);
    assert.equal(invoice.total, 49250);
    assert.equal(invoice.amountRemaining, 49250);
    assert.equal(invoice.amountPaid, 0);
    assert.equal(invoice.amountCredited, 0);
    assert.equal(invoice.outOfBandAmount, 0);
    assert.equal(invoice.dueDate, '2027-01-31');
    assert.equal(invoice.memo, 'Thank you!');
    assert.deepEqual(invoice.metadata, { order: '42' });
    const fetched = await api.get(`/v1/invoices/${invoice.id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, invoice);
    assert.deepEqual(await eventsOf(invoice.id), ['invoice.created']);
  });

  it('adds and removes lines while draft', async () => {
    const invoice = await createInvoice(api, { customerId: customer.id });
    const added = await api.post(`/v1/invoices/${invoice.id}/lines`, {
      description: 'Widget',
      quantity: 2,
      unitAmount: 500,
    });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.body.subtotal, 1000);
    const second = await api.post(`/v1/invoices/${invoice.id}/lines`, {
      description: 'Gadget',
      unitAmount: 250,
    });
    assert.deepEqual(
      second.body.lines.map((l: any) => l.description),
      ['Widget', 'Gadget'],
    );
    assert.equal(second.body.total, 1250);
    const lineId = second.body.lines[0].id;
    const removed = await api.delete(`/v1/invoices/${invoice.id}/lines/${lineId}`);
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(
      removed.body.lines.map((l: any) => l.description),
      ['Gadget'],
    );
    assert.equal(removed.body.total, 250);
    assertError(
      await api.delete(`/v1/invoices/${invoice.id}/lines/${lineId}`),
      404,
      'resource_missing',
    );
    assert.deepEqual(await eventsOf(invoice.id), [
      'invoice.created',
      'invoice.updated',
      'invoice.updated',
      'invoice.updated',
    ]);
  });

  it('edits a draft with PATCH: lines replaced, null clears, due date or days', async () => {
    const invoice = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'Old', unitAmount: 100 }],
      memo: 'memo',
      dueDate: '2027-03-01',
    });
    const patched = await api.patch(`/v1/invoices/${invoice.id}`, {
      lines: [{ description: 'New', quantity: 4, unitAmount: 125 }],
      memo: null,
      daysUntilDue: 30,
      metadata: { a: 'b' },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(
      patched.body.lines.map((l: any) => l.description),
      ['New'],
    );
    assert.equal(patched.body.total, 500);
    assert.equal(patched.body.memo, null);
    assert.equal(patched.body.dueDate, null);
    assert.equal(patched.body.daysUntilDue, 30);
    assert.deepEqual(patched.body.metadata, { a: 'b' });
    const back = await api.patch(`/v1/invoices/${invoice.id}`, { dueDate: '2027-04-01' });
    assert.equal(back.body.dueDate, '2027-04-01');
    assert.equal(back.body.daysUntilDue, null);
  });

  it("never shows a draft's totals with lines of another version while PATCHes land", async () => {
    const invoice = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'v0', unitAmount: 100 }],
    });
    const path = `/v1/invoices/${invoice.id}`;
    const consistent = (body: any) => {
      assert.equal(
        body.subtotal,
        body.lines.reduce((sum: number, l: any) => sum + l.amount, 0),
        `subtotal ${body.subtotal} with lines ${JSON.stringify(body.lines)}`,
      );
    };
    let writing = true;
    const writer = (async () => {
      for (let i = 1; i <= 30; i++) {
        const lines = Array.from({ length: 1 + (i % 4) }, (_, j) => ({
          description: `v${i}.${j}`,
          unitAmount: 100 * i + j,
        }));
        const res = await api.patch(path, { lines });
        assert.equal(res.status, 200, res.text);
      }
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const [one, page] = await Promise.all([
        api.get(path),
        api.get(`/v1/invoices?customerId=${customer.id}&status=draft&limit=100`),
      ]);
      assert.equal(one.status, 200, one.text);
      consistent(one.body);
      page.body.data.forEach(consistent);
      reads++;
    }
    await writer;
    assert.ok(reads > 0);
  });

  it('shows a change in every read asked for after it, under concurrent identical reads', async () => {
    // Identical reads of one invoice share queries (src/db/shared-reads.ts): none may answer
    // from a query that began before the request came.
    // A shared read's body is encoded once and sent to every request that shares it: each gets
    // the whole body, with its length in bytes (the line below is not ASCII).
    const invoice = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'Before: Überweisung €, 請求書', unitAmount: 100 }],
    });
    const path = `/v1/invoices/${invoice.id}`;
    for (let round = 1; round <= 3; round++) {
      const busy = Array.from({ length: 30 }, () => api.get(path));
      const patched = await api.patch(path, { memo: `round ${round} – ✓` });
      assert.equal(patched.status, 200, patched.text);
      const after = await Promise.all(Array.from({ length: 30 }, () => api.get(path)));
      for (const res of after) {
        assert.equal(res.status, 200);
        assert.equal(res.body.memo, `round ${round} – ✓`);
        assert.equal(res.text, patched.text);
        assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text));
      }
      for (const res of await Promise.all(busy)) assert.equal(res.status, 200);
    }
  });

  it('deletes a draft, which is then gone', async () => {
    const invoice = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'x', unitAmount: 1 }],
    });
    const deleted = await api.delete(`/v1/invoices/${invoice.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, { id: invoice.id, object: 'invoice', deleted: true });
    assertError(await api.get(`/v1/invoices/${invoice.id}`), 404, 'resource_missing');
    assert.deepEqual(await eventsOf(invoice.id), ['invoice.created', 'invoice.deleted']);
  });

  it('refuses a customer of no one, and two ways of giving the due date', async () => {
    assertError(
      await api.post('/v1/invoices', { customerId: 'cus_missing', currency: 'eur' }),
      404,
      'resource_missing',
      'customerId',
    );
    assertError(
      await api.post('/v1/invoices', {
        customerId: customer.id,
        currency: 'eur',
        dueDate: '2027-01-01',
        daysUntilDue: 3,
      }),
      400,
      'parameter_invalid',
      'daysUntilDue',
    );
    for (const dueDate of ['2027-02-30', '2027-13-01', '27-01-01', 'tomorrow', '0000-01-01']) {
      const res = await api.post('/v1/invoices', {
        customerId: customer.id,
        currency: 'eur',
        dueDate,
      });
      assertError(res, 400, 'parameter_invalid', 'dueDate');
    }
    assertError(
      await api.post('/v1/invoices', { currency: 'eur' }),
      400,
      'parameter_missing',
      'customerId',
    );
    assertError(
      await api.post('/v1/invoices', { customerId: customer.id, currency: 'eur', total: 5 }),
      400,
      'parameter_invalid',
      'total',
    );
  });
});

describe('money on invoices', () => {
  it('refuses upper-case and unknown currencies', async () => {
    for (const currency of ['EUR', 'Eur', 'xyz', 'eu', 'euro', 'xau', '']) {
      const res = await api.post('/v1/invoices', { customerId: customer.id, currency });
      assertError(res, 400, 'parameter_invalid', 'currency');
    }
  });

  it('keeps amounts in the minor unit of yen (0 decimals) and dinar (3 decimals)', async () => {
    const yen = await createInvoice(api, {
      customerId: customer.id,
      currency: 'jpy',
      lines: [{ description: 'Tea', quantity: 3, unitAmount: 333 }],
    });
    assert.equal(yen.currency, 'jpy');
    assert.equal(yen.total, 999);
    const dinar = await createInvoice(api, {
      customerId: customer.id,
      currency: 'kwd',
      lines: [{ description: 'Dates', quantity: 3, unitAmount: 1234 }],
    });
    assert.equal(dinar.total, 3702);
  });

  it('accepts quantity 0 (a line shown for information) and a discount line', async () => {
    const invoice = await createInvoice(api, {
      customerId: customer.id,
      lines: [
        { description: 'Free sample', quantity: 0, unitAmount: 990 },
        { description: 'Service', quantity: 1, unitAmount: 10000 },
        { description: 'Discount', quantity: 1, unitAmount: -1500 },
      ],
    });
    assert.deepEqual(
      invoice.lines.map((l: any) => l.amount),
      [0, 10000, -1500],
    );
    assert.equal(invoice.total, 8500);
  });

  it('refuses lines that add up to less than 0', async () => {
    const res = await api.post('/v1/invoices', {
      customerId: customer.id,
      currency: 'eur',
      lines: [{ description: 'Discount', unitAmount: -100 }],
    });
    assertError(res, 400, 'parameter_invalid', 'lines');
    const invoice = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'Service', unitAmount: 100 }],
    });
    assertError(
      await api.post(`/v1/invoices/${invoice.id}/lines`, {
        description: 'Too big a discount',
        unitAmount: -101,
      }),
      400,
      'parameter_invalid',
      'lines',
    );
  });

  it('refuses huge amounts instead of wrapping or rounding them', async () => {
    const post = (lines: unknown[]) =>
      api.post('/v1/invoices', { customerId: customer.id, currency: 'eur', lines });
    // Beyond 2^53 − 1: not an exact JSON integer in JavaScript.
    assertError(
      await post([{ description: 'x', unitAmount: MAX + 1 }]),
      400,
      'parameter_invalid',
      'lines.0.unitAmount',
    );
    assertError(
      await post([{ description: 'x', unitAmount: 1e20 }]),
      400,
      'parameter_invalid',
      'lines.0.unitAmount',
    );
    // Each factor fine, the product not.
    assertError(
      await post([{ description: 'x', quantity: 1000, unitAmount: MAX }]),
      400,
      'parameter_invalid',
      'lines.0.unitAmount',
    );
    // Each line fine, the sum not.
    assertError(
      await post([
        { description: 'x', unitAmount: MAX },
        { description: 'y', unitAmount: 1 },
      ]),
      400,
      'parameter_invalid',
      'lines',
    );
    assertError(
      await post([{ description: 'x', quantity: 1e10, unitAmount: 1 }]),
      400,
      'parameter_invalid',
      'lines.0.quantity',
    );
    for (const quantity of [-1, 1.5, '2']) {
      assertError(
        await post([{ description: 'x', quantity, unitAmount: 1 }]),
        400,
        'parameter_invalid',
        'lines.0.quantity',
      );
    }
    assertError(
      await post([{ description: 'x', unitAmount: 1.5 }]),
      400,
      'parameter_invalid',
      'lines.0.unitAmount',
    );
    // The largest amount itself is fine.
    const largest = await post([{ description: 'x', unitAmount: MAX }]);
    assert.equal(largest.status, 201, largest.text);
    assert.equal(largest.body.total, MAX);
    const read = await api.get(`/v1/invoices/${largest.body.id}`);
    assert.equal(read.body.total, MAX);
  });

  it('holds at most 250 lines', async () => {
    const lines = Array.from({ length: 250 }, (_, i) => ({ description: `L${i}`, unitAmount: 1 }));
    const invoice = await createInvoice(api, { customerId: customer.id, lines });
    assert.equal(invoice.lines.length, 250);
    assert.equal(invoice.total, 250);
    assertError(
      await api.post(`/v1/invoices/${invoice.id}/lines`, {
        description: 'one more',
        unitAmount: 1,
      }),
      400,
      'parameter_invalid',
      'lines',
    );
    assertError(
      await api.post('/v1/invoices', {
        customerId: customer.id,
        currency: 'eur',
        lines: [...lines, { description: 'one more', unitAmount: 1 }],
      }),
      400,
      'parameter_invalid',
      'lines',
    );
  });

  it('holds the money invariants in the database too', async () => {
    const invoice = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'x', quantity: 2, unitAmount: 50 }],
    });
    const violations = [
      `UPDATE invoices SET total = total + 1 WHERE id = $1`,
      `UPDATE invoices SET amount_remaining = amount_remaining - 1 WHERE id = $1`,
      `UPDATE invoices SET amount_credited = total + 1, amount_remaining = -1 WHERE id = $1`,
      `UPDATE invoice_lines SET amount = amount + 1 WHERE invoice_id = $1`,
      `UPDATE invoice_lines SET quantity = -quantity, amount = -amount WHERE invoice_id = $1`,
      `UPDATE invoices SET status = 'open' WHERE id = $1`,
      `UPDATE invoices SET status = 'bogus' WHERE id = $1`,
      `UPDATE invoices SET environment = 'prod' WHERE id = $1`,
      `UPDATE invoices SET currency = 'EUR' WHERE id = $1`,
      `UPDATE invoices SET subtotal = -1, total = -1, total_excluding_tax = -1,
                           amount_remaining = -1 WHERE id = $1`,
      `UPDATE invoices SET tax = 1, total_excluding_tax = total - 1 WHERE id = $1`,
      `UPDATE invoices SET total_excluding_tax = total + 1 WHERE id = $1`,
      `UPDATE invoices SET amount_paid = -1, amount_remaining = total + 1 WHERE id = $1`,
      `UPDATE invoices SET amount_credited = -1, amount_remaining = total + 1 WHERE id = $1`,
      `UPDATE invoices SET out_of_band_amount = -1 WHERE id = $1`,
      `UPDATE invoices SET out_of_band_amount = total + 1 WHERE id = $1`,
      `UPDATE invoices SET days_until_due = 3651 WHERE id = $1`,
      `UPDATE invoices SET days_until_due = -1 WHERE id = $1`,
      `UPDATE invoices SET number = 'X-1' WHERE id = $1`,
      `UPDATE invoices SET issued_at = now() WHERE id = $1`,
      `UPDATE invoices SET customer_snapshot = '{}' WHERE id = $1`,
      `UPDATE invoices SET status = 'paid', number = 'X-1', issued_at = now(),
                           customer_snapshot = '{}', paid_at = now() WHERE id = $1`,
      `UPDATE invoices SET status = 'paid', number = 'X-1', issued_at = now(),
                           customer_snapshot = '{}', amount_paid = total, amount_remaining = 0
        WHERE id = $1`,
      `UPDATE invoices SET status = 'void', number = 'X-1', issued_at = now(),
                           customer_snapshot = '{}' WHERE id = $1`,
      // amountPaid is the sum of the invoice's payments (checked when the transaction commits).
      `UPDATE invoices SET amount_paid = 1, amount_remaining = total - 1 WHERE id = $1`,
    ];
    for (const sql of violations) {
      await assert.rejects(server.db.query(sql, [invoice.id]), /check constraint/, sql);
    }
    // Each of those breaks one rule only: the same changes made whole are accepted.
    const allowed = [
      `UPDATE invoices SET days_until_due = 3650 WHERE id = $1`,
      `UPDATE invoices SET days_until_due = NULL WHERE id = $1`,
      `UPDATE invoices SET out_of_band_amount = total WHERE id = $1`,
      `WITH payment AS (
         INSERT INTO payments (tenant_id, environment, id, invoice_id, customer_id, currency,
                               amount, method, received_at)
         SELECT tenant_id, environment, 'pay_whole', id, customer_id, currency, total, 'other',
                now() FROM invoices WHERE id = $1)
       UPDATE invoices SET status = 'paid', number = 'X-1', issued_at = now(), out_of_band_amount = 0,
                           customer_snapshot = '{}', amount_paid = total, amount_remaining = 0,
                           paid_at = now() WHERE id = $1`,
    ];
    for (const sql of allowed) {
      const { rowCount } = await server.db.query(sql, [invoice.id]);
      assert.equal(rowCount, 1, sql);
    }
  });

  it('keeps invoice numbers unique in the database, drafts holding none', async () => {
    const issued = [];
    for (let i = 0; i < 2; i++) {
      const draft = await createInvoice(api, {
        customerId: customer.id,
        lines: [{ description: 'x', quantity: 1, unitAmount: 10 }],
      });
      const res = await api.post(`/v1/invoices/${draft.id}/issue`);
      assert.equal(res.status, 200, res.text);
      issued.push(res.body);
    }
    assert.notEqual(issued[0].number, issued[1].number);
    await assert.rejects(
      server.db.query('UPDATE invoices SET number = $1 WHERE id = $2', [
        issued[0].number,
        issued[1].id,
      ]),
      // (On a table partitioned by tenant, the partition's copy of it: invoices_number_p3.)
      /duplicate key value violates unique constraint "invoices_number(_p\d+)?"/,
    );
  });
});

describe('listing invoices', () => {
  it('filters by customer and status and pages through every invoice once', async () => {
    const { api: own } = await tenantApi(server);
    const a = await createCustomer(own, { name: 'A' });
    const b = await createCustomer(own, { name: 'B' });
    const ids: Record<string, string[]> = { a: [], b: [] };
    for (let i = 0; i < 7; i++) {
      const which = i % 2 === 0 ? 'a' : 'b';
      const invoice = await createInvoice(own, {
        customerId: which === 'a' ? a.id : b.id,
        lines: [{ description: 'x', unitAmount: 100 }],
      });
      ids[which]!.push(invoice.id);
    }
    const issued = await own.post(`/v1/invoices/${ids.a![0]}/issue`);
    assert.equal(issued.status, 200, issued.text);

    const walk = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await own.get(
          `/v1/invoices?limit=2${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.data.length <= 2);
        seen.push(...res.body.data.map((i: any) => i.id));
        cursor = res.body.nextCursor;
      } while (cursor);
      return seen;
    };
    const newestFirst = (list: string[]) => [...list].reverse();
    assert.deepEqual(await walk(''), newestFirst([...ids.a!, ...ids.b!].sort()));
    assert.deepEqual(await walk(`&customerId=${a.id}`), newestFirst(ids.a!));
    assert.deepEqual(await walk(`&customerId=${b.id}&status=draft`), newestFirst(ids.b!));
    assert.deepEqual(await walk('&status=open'), [ids.a![0]]);
    assert.deepEqual(await walk(`&customerId=${a.id}&status=open`), [ids.a![0]]);
    assert.deepEqual(await walk(`&customerId=${b.id}&status=open`), []);

    // List items are exactly what GET returns, lines included.
    const listed = await own.get(`/v1/invoices?customerId=${a.id}&limit=1`);
    const fetched = await own.get(`/v1/invoices/${listed.body.data[0].id}`);
    assert.deepEqual(listed.body.data[0], fetched.body);

    // A cursor belongs to its filters.
    const page = await own.get(`/v1/invoices?limit=1&customerId=${a.id}`);
    assertError(
      await own.get(
        `/v1/invoices?customerId=${b.id}&cursor=${encodeURIComponent(page.body.nextCursor)}`,
      ),
      400,
      'cursor_invalid',
    );
    assertError(await own.get('/v1/invoices?status=paid2'), 400, 'parameter_invalid', 'status');
    assertError(await own.get('/v1/invoices?limit=0'), 400, 'parameter_invalid', 'limit');
  });
});

describe('scopes and idempotency', () => {
  it('needs invoices:read to read and invoices:write to change', async () => {
    const { api: reader, key: readerKey } = await tenantApi(server, {
      scopes: ['invoices:read', 'customers:write'],
    });
    const { api: writer } = await tenantApi(server, {
      tenantId: readerKey.tenantId,
      scopes: ['invoices:write'],
    });
    const own = await createCustomer(reader);
    const refused = await reader.post('/v1/invoices', { customerId: own.id, currency: 'eur' });
    assertError(refused, 403, 'scope_insufficient');
    assert.equal(refused.body.error.requiredScope, 'invoices:write');
    const created = await writer.post('/v1/invoices', { customerId: own.id, currency: 'eur' });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id;
    for (const path of [`/v1/invoices/${id}`, '/v1/invoices', `/v1/invoices/${id}/pdf`]) {
      assertError(await writer.get(path), 403, 'scope_insufficient');
      assert.equal((await reader.get(path)).status, 200, path);
    }
    for (const [method, path] of [
      ['patch', `/v1/invoices/${id}`],
      ['post', `/v1/invoices/${id}/lines`],
      ['delete', `/v1/invoices/${id}/lines/il_x`],
      ['post', `/v1/invoices/${id}/issue`],
      ['post', `/v1/invoices/${id}/pay`],
      ['post', `/v1/invoices/${id}/void`],
      ['post', `/v1/invoices/${id}/mark-uncollectible`],
      ['post', `/v1/invoices/${id}/send`],
      ['delete', `/v1/invoices/${id}`],
    ] as const) {
      const res = method === 'delete' ? await reader.delete(path) : await reader[method](path, {});
      assertError(res, 403, 'scope_insufficient');
    }
  });

  it('creates one invoice for a retried request with the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'create-invoice-1' };
    const body = {
      customerId: customer.id,
      currency: 'eur',
      lines: [{ description: 'x', unitAmount: 7 }],
    };
    const first = await api.post('/v1/invoices', body, headers);
    const again = await api.post('/v1/invoices', body, headers);
    assert.equal(first.status, 201);
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    const issue = await api.post(`/v1/invoices/${first.body.id}/issue`, undefined, headers);
    assertError(issue, 422, 'idempotency_key_reused');
  });
});
