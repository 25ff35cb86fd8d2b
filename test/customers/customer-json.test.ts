// The customer's JSON written from its row read as text (src/customers/customer-json.ts) says
// exactly what customerFromRow's object says, for every kind of field and instant, and so do
// the answers of GET /v1/customers/:id and the pages of GET /v1/customers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customerJson } from '../../src/customers/customer-json.ts';
import { customerFromRow } from '../../src/customers/service.ts';
import { selectCustomer, selectCustomerText } from '../../src/customers/store.ts';
import { isoInstant } from '../../src/db/text-rows.ts';
import { client, createTenantWithKey, startTestApp } from '../helpers.ts';

const server = await startTestApp();
const db = server.db;
const owner = await createTenantWithKey(db, { scopes: ['customers:read', 'customers:write'] });
const api = client(server.url, owner.secret);
const scope = { tenantId: owner.tenantId, environment: owner.environment };

const bodies = [
  {},
  { name: 'Müller "Maschinenbau" GmbH \\ Süd\n\t', email: 'Billing@Example.com', phone: '+49 1' },
  {
    name: 'Ünïcødé ✓ 𝄞 \u2028 <script>',
    address: { line1: 'Hauptstraße 5', city: 'München', postalCode: '80331', country: 'DE' },
    description: 'quote " backslash \\ control \u0001',
    metadata: { order: '42', 'key "with" quotes': 'value\nnext', empty: '' },
    taxIds: [
      { type: 'eu_vat', value: 'DE123456789' },
      { type: 'gb_vat', value: 'GB123456789' },
    ],
    taxExempt: 'reverse',
    locale: 'de-AT',
    buyerReference: '04011000-12345-03',
    electronicAddress: { scheme: '0088', value: '4000001000005' },
    timeZone: 'Europe/Berlin',
  },
];
for (const body of bodies) {
  const res = await api.post('/v1/customers', body);
  assert.equal(res.status, 201, res.text);
}
// Instants of every fraction PostgreSQL may print: none, one digit, milliseconds, microseconds.
const instants = [
  '2026-01-01 00:00:00+00',
  '2026-01-01 00:00:00.1+00',
  '2026-01-01 00:00:00.123+00',
  '2026-01-01 00:00:00.123999+00',
  '1999-12-31 23:59:59.999999+00',
  '2026-07-01 12:30:00.000001+00',
];
await db.query(
  `INSERT INTO customers (tenant_id, environment, id, name, created_at, updated_at)
   SELECT $1, 'test', 'cus_instant' || i, 'At ' || t, t::timestamptz, t::timestamptz
     FROM unnest($2::text[]) WITH ORDINALITY AS u(t, i)`,
  [owner.tenantId, instants],
);
const ids = (
  await db.query<{ id: string }>('SELECT id FROM customers WHERE tenant_id = $1', [owner.tenantId])
).rows.map((r) => r.id);

async function expected(id: string) {
  return customerFromRow((await selectCustomer(db, scope, id))!);
}

describe('the customer as JSON text', () => {
  it('says what customerFromRow says, for every customer', async () => {
    assert.equal(ids.length, bodies.length + instants.length);
    for (const id of ids) {
      const text = (await selectCustomerText(db, scope, id))!;
      assert.deepEqual(JSON.parse(customerJson(text)), await expected(id), id);
    }
  });

  it('writes instants as Date.toISOString does, in the UTC session and in any other', async () => {
    for (const instant of instants) {
      assert.equal(isoInstant(instant), new Date(instant.replace(' ', 'T') + ':00').toISOString());
    }
    assert.equal(isoInstant('2026-01-01 01:00:00.5+01'), '2026-01-01T00:00:00.500Z');
    assert.equal(isoInstant('2026-01-01 00:00:00.123456-05:30'), '2026-01-01T05:30:00.123Z');
  });

  it('is what GET /v1/customers/:id and every page of GET /v1/customers answer', async () => {
    for (const id of ids) {
      const res = await api.get(`/v1/customers/${id}`);
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
      assert.deepEqual(res.body, await expected(id));
    }
    let cursor: string | null = null;
    const seen: unknown[] = [];
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await api.get(`/v1/customers?limit=4${query}`);
      assert.equal(res.status, 200, res.text);
      seen.push(...res.body.data);
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.equal(seen.length, ids.length);
    for (const customer of seen) {
      assert.deepEqual(customer, await expected((customer as { id: string }).id));
    }
  });
});
