import assert from 'node:assert/strict';
import { ddlBesideWork, setSettings, waitFor } from '../helpers.ts';
import { describe, it } from 'node:test';
import {
  assertError,
  createCustomer,
  createInvoice,
  startInvoiceApp,
  tenantApi,
  type Api,
} from './fixtures.ts';

// Without SMTP_URL, /send writes the message into DATA_DIR/outbox: a folder of this test.
const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const customer = await createCustomer(api, {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  address: { line1: '1 Navy Way', city: 'Arlington', country: 'US' },
});

const STATUSES = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;
type Status = (typeof STATUSES)[number];

async function invoiceIn(status: Status, client: Api = api, customerId = customer.id) {
  const invoice = await createInvoice(client, {
    customerId,
    lines: [{ description: 'Service', unitAmount: 5000 }],
  });
  const steps: Record<Status, string[]> = {
    draft: [],
    open: ['issue'],
    paid: ['issue', 'pay'],
    void: ['issue', 'void'],
    uncollectible: ['issue', 'mark-uncollectible'],
  };
  let body = invoice;
  for (const step of steps[status]) {
    const res = await client.post(`/v1/invoices/${invoice.id}/${step}`);
    assert.equal(res.status, 200, res.text);
    body = res.body;
  }
  assert.equal(body.status, status);
  return body;
}

// Every action of the API on an invoice, and what each status answers (the contract's table:
// an action missing from a status's list is 409 state_invalid).
const ACTIONS: Record<
  string,
  (id: string) => Promise<{ status: number; body: any; text: string }>
> = {
  issue: (id) => api.post(`/v1/invoices/${id}/issue`),
  pay: (id) => api.post(`/v1/invoices/${id}/pay`),
  void: (id) => api.post(`/v1/invoices/${id}/void`),
  'mark-uncollectible': (id) => api.post(`/v1/invoices/${id}/mark-uncollectible`),
  send: (id) => api.post(`/v1/invoices/${id}/send`),
  delete: (id) => api.delete(`/v1/invoices/${id}`),
  'edit memo': (id) => api.patch(`/v1/invoices/${id}`, { memo: 'changed' }),
  'add line': (id) => api.post(`/v1/invoices/${id}/lines`, { description: 'x', unitAmount: 1 }),
  'edit metadata': (id) => api.patch(`/v1/invoices/${id}`, { metadata: { note: 'ok' } }),
};
const ALLOWED: Record<Status, Record<string, Status | 'deleted'>> = {
  draft: {
    issue: 'open',
    delete: 'deleted',
    'edit memo': 'draft',
    'add line': 'draft',
    'edit metadata': 'draft',
  },
  open: {
    pay: 'paid',
    void: 'void',
    'mark-uncollectible': 'uncollectible',
    send: 'open',
    'edit metadata': 'open',
  },
  uncollectible: {
    pay: 'paid',
    void: 'void',
    send: 'uncollectible',
    'edit metadata': 'uncollectible',
  },
  paid: { send: 'paid', 'edit metadata': 'paid' },
  void: { 'edit metadata': 'void' },
};

describe('invoice lifecycle', () => {
  for (const status of STATUSES) {
    for (const action of Object.keys(ACTIONS)) {
      const expected = ALLOWED[status][action];
      const title = expected
        ? `${action} on a ${status} invoice leaves it ${expected}`
        : `refuses ${action} on a ${status} invoice with 409 state_invalid`;
      it(title, async () => {
        const invoice = await invoiceIn(status);
        const res = await ACTIONS[action]!(invoice.id);
        if (!expected) {
          assertError(res, 409, 'state_invalid');
          const after = await api.get(`/v1/invoices/${invoice.id}`);
          assert.deepEqual(after.body, invoice, 'a refused action changes nothing');
          return;
        }
        assert.equal(res.status, 200, res.text);
        if (expected === 'deleted') {
          assert.equal(res.body.deleted, true);
          return;
        }
        assert.equal(res.body.status, expected);
        assert.deepEqual(res.body, (await api.get(`/v1/invoices/${invoice.id}`)).body);
      });
    }
  }

  it('refuses removing a line of an issued invoice', async () => {
    const invoice = await invoiceIn('open');
    const res = await api.delete(`/v1/invoices/${invoice.id}/lines/${invoice.lines[0].id}`);
    assertError(res, 409, 'state_invalid');
  });

  it('stamps every transition with its time and writes its event', async () => {
    const started = new Date().toISOString();
    const paid = await invoiceIn('paid');
    assert.ok(paid.issuedAt >= started && paid.paidAt >= paid.issuedAt);
    assert.equal(paid.amountPaid, 5000);
    assert.equal(paid.amountRemaining, 0);
    const voided = await invoiceIn('void');
    assert.ok(voided.voidedAt >= voided.issuedAt);
    assert.equal(voided.paidAt, null);
    const bad = await invoiceIn('uncollectible');
    assert.ok(bad.markedUncollectibleAt >= bad.issuedAt);
    const recovered = await api.post(`/v1/invoices/${bad.id}/pay`);
    assert.equal(recovered.body.status, 'paid');
    const open = await invoiceIn('open');
    assert.equal((await api.post(`/v1/invoices/${open.id}/send`)).status, 200);
    let sent: any;
    await waitFor(async () => {
      sent = (await api.get(`/v1/invoices/${open.id}`)).body;
      return sent.sentAt !== null;
    }, 'sent');
    assert.ok(sent.sentAt >= sent.issuedAt);
    assert.equal(sent.status, 'open');

    const types = async (id: string) =>
      (
        await server.db.query(
          'SELECT type FROM events WHERE tenant_id = $1 AND object_id = $2 ORDER BY created_at, id',
          [key.tenantId, id],
        )
      ).rows.map((r) => r.type);
    assert.deepEqual(await types(paid.id), ['invoice.created', 'invoice.issued', 'invoice.paid']);
    assert.deepEqual(await types(voided.id), [
      'invoice.created',
      'invoice.issued',
      'invoice.voided',
    ]);
    assert.deepEqual(await types(bad.id), [
      'invoice.created',
      'invoice.issued',
      'invoice.marked_uncollectible',
      'invoice.paid',
    ]);
    assert.deepEqual(await types(sent.id), ['invoice.created', 'invoice.issued', 'invoice.sent']);
  });

  it('freezes the customer on issue and then changes only metadata', async () => {
    const own = await createCustomer(api, {
      name: 'Before',
      email: 'before@example.com',
      address: { line1: 'Old Street 1', city: 'Berlin', country: 'DE' },
      taxIds: [{ type: 'eu_vat', value: 'DE123456789' }],
    });
    const invoice = await invoiceIn('open', api, own.id);
    assert.deepEqual(invoice.customer, {
      name: 'Before',
      email: 'before@example.com',
      address: {
        line1: 'Old Street 1',
        line2: null,
        city: 'Berlin',
        state: null,
        postalCode: null,
        country: 'DE',
      },
      taxIds: [{ type: 'eu_vat', value: 'DE123456789' }],
      taxExempt: 'none',
      // The documents' language, and where e-invoices reach the customer (from its VAT id).
      locale: 'en',
      electronicAddress: { scheme: '9930', value: 'DE123456789' },
    });
    await api.patch(`/v1/customers/${own.id}`, { name: 'After', email: 'after@example.com' });
    const later = await api.get(`/v1/invoices/${invoice.id}`);
    assert.deepEqual(later.body.customer, invoice.customer);
    for (const patch of [
      { memo: 'x' },
      { dueDate: '2030-01-01' },
      { lines: [] },
      { metadata: { a: '1' }, memo: 'x' },
    ]) {
      assertError(await api.patch(`/v1/invoices/${invoice.id}`, patch), 409, 'state_invalid');
    }
    const meta = await api.patch(`/v1/invoices/${invoice.id}`, { metadata: { a: '1' } });
    assert.equal(meta.status, 200, meta.text);
    assert.deepEqual(meta.body.metadata, { a: '1' });
    assert.equal(meta.body.total, invoice.total);
  });

  it('derives the electronic address from the VAT id the documents name, a gb_vat too', async () => {
    const british = await createCustomer(api, {
      name: 'London Ltd',
      email: 'ap@london.example',
      address: { line1: '1 Poultry', city: 'London', country: 'GB' },
      taxIds: [
        { type: 'us_ein', value: '12-3456789' },
        { type: 'gb_vat', value: 'GB 123 4567 89' },
      ],
    });
    const swiss = await createCustomer(api, {
      name: 'Zürich AG',
      email: 'ap@zuerich.example',
      taxIds: [{ type: 'ch_vat', value: 'CHE-123.456.789 MWST' }],
    });
    const emailOnly = await createCustomer(api, {
      name: 'Inc.',
      email: 'ap@inc.example',
      taxIds: [{ type: 'us_ein', value: '12-3456789' }],
    });
    const frozen = async (customerId: string) =>
      (await invoiceIn('open', api, customerId)).customer.electronicAddress;
    assert.deepEqual(await frozen(british.id), { scheme: '9932', value: 'GB123456789' });
    assert.deepEqual(await frozen(swiss.id), { scheme: '9927', value: 'CHE123456789MWST' });
    assert.deepEqual(await frozen(emailOnly.id), { scheme: 'EM', value: 'ap@inc.example' });
  });

  it('sends an invoice whose total is 0 straight to paid on issue', async () => {
    const invoice = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'Free', quantity: 0, unitAmount: 1000 }],
    });
    const issued = await api.post(`/v1/invoices/${invoice.id}/issue`);
    assert.equal(issued.status, 200, issued.text);
    assert.equal(issued.body.status, 'paid');
    assert.match(issued.body.number, /^INV-\d{6}$/);
    assert.equal(issued.body.paidAt, issued.body.issuedAt);
    const empty = await createInvoice(api, { customerId: customer.id });
    assert.equal((await api.post(`/v1/invoices/${empty.id}/issue`)).body.status, 'paid');
  });

  it('sets the due date from daysUntilDue when issued', async () => {
    const invoice = await createInvoice(api, {
      customerId: customer.id,
      daysUntilDue: 14,
      lines: [{ description: 'x', unitAmount: 1 }],
    });
    assert.equal(invoice.dueDate, null);
    const issued = await api.post(`/v1/invoices/${invoice.id}/issue`);
    const expected = new Date(Date.parse(issued.body.issuedAt) + 14 * 86_400_000)
      .toISOString()
      .slice(0, 10);
    assert.equal(issued.body.dueDate, expected);
    assert.equal(issued.body.daysUntilDue, 14);
  });
});

describe('invoice numbers', () => {
  const numberOf = (n: string) => Number(n.slice(n.length - 6));

  it('gives 30 drafts issued at once 30 consecutive numbers', async () => {
    const { api: own } = await tenantApi(server);
    const who = await createCustomer(own);
    const drafts = await Promise.all(
      Array.from({ length: 30 }, () =>
        createInvoice(own, { customerId: who.id, lines: [{ description: 'x', unitAmount: 10 }] }),
      ),
    );
    const issued = await Promise.all(drafts.map((d) => own.post(`/v1/invoices/${d.id}/issue`)));
    for (const res of issued) assert.equal(res.status, 200, res.text);
    const numbers = issued.map((r) => r.body.number as string).sort();
    assert.deepEqual(
      numbers,
      Array.from({ length: 30 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`),
    );
  });

  it('leaves no gap when an issue fails inside its transaction', async () => {
    const { api: own, key: ownKey } = await tenantApi(server);
    const who = await createCustomer(own);
    const draft = (memo?: string) =>
      createInvoice(own, {
        customerId: who.id,
        memo,
        lines: [{ description: 'x', unitAmount: 10 }],
      });
    // A test-only trigger makes the issuing UPDATE of one invoice fail after its number was
    // taken from the counter.
    await ddlBesideWork(
      server.db,
      `
      CREATE OR REPLACE FUNCTION test_fail_issue() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.number IS NOT NULL AND NEW.memo = 'fail this issue' THEN
          RAISE EXCEPTION 'issue refused by test trigger';
        END IF;
        RETURN NEW;
      END $$;
      DROP TRIGGER IF EXISTS test_fail_issue ON invoices;
      CREATE TRIGGER test_fail_issue BEFORE UPDATE ON invoices
        FOR EACH ROW EXECUTE FUNCTION test_fail_issue();`,
    );
    try {
      const first = await own.post(`/v1/invoices/${(await draft()).id}/issue`);
      const failing = await draft('fail this issue');
      const failed = await own.post(`/v1/invoices/${failing.id}/issue`);
      assertError(failed, 500, 'internal_error');
      const still = await own.get(`/v1/invoices/${failing.id}`);
      assert.equal(still.body.status, 'draft');
      assert.equal(still.body.number, null);
      // Failures and successes interleaved, concurrently.
      const more = await Promise.all([draft(), draft('fail this issue'), draft(), draft()]);
      const results = await Promise.all(more.map((d) => own.post(`/v1/invoices/${d.id}/issue`)));
      assert.deepEqual(
        results.map((r) => r.status),
        [200, 500, 200, 200],
      );
      const numbers = [first, ...results.filter((r) => r.status === 200)]
        .map((r) => numberOf(r.body.number))
        .sort((a, b) => a - b);
      assert.deepEqual(numbers, [1, 2, 3, 4]);
    } finally {
      await ddlBesideWork(server.db, 'DROP TRIGGER IF EXISTS test_fail_issue ON invoices');
    }
    const { rows } = await server.db.query(
      `SELECT number FROM invoices WHERE tenant_id = $1 AND number IS NOT NULL ORDER BY number`,
      [ownKey.tenantId],
    );
    assert.deepEqual(
      rows.map((r) => r.number),
      ['INV-000001', 'INV-000002', 'INV-000003', 'INV-000004'],
    );
  });

  it('numbers each tenant and environment on its own, with the tenant prefix', async () => {
    const { api: a, key: aKey } = await tenantApi(server);
    const { api: aLive } = await tenantApi(server, {
      tenantId: aKey.tenantId,
      environment: 'live',
    });
    const { api: b, key: bKey } = await tenantApi(server);
    await setSettings(server.db, bKey.tenantId, { invoicePrefix: 'ACME-' });
    const issue = async (client: Api) => {
      const who = await createCustomer(client);
      const draft = await createInvoice(client, {
        customerId: who.id,
        lines: [{ description: 'x', unitAmount: 10 }],
      });
      return (await client.post(`/v1/invoices/${draft.id}/issue`)).body.number;
    };
    assert.equal(await issue(a), 'INV-000001');
    assert.equal(await issue(aLive), 'INV-000001');
    assert.equal(await issue(b), 'ACME-000001');
    assert.equal(await issue(a), 'INV-000002');
    assert.equal(await issue(b), 'ACME-000002');
  });
});
