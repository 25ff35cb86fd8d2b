// Set-up shared by the credit-note tests: issued invoices made over the API, and a snapshot of
// everything a credit note may change, to show that a refused request changed nothing.
import assert from 'node:assert/strict';
import type { Db } from '../../src/db/pool.ts';
import type { TestServer } from '../helpers.ts';
import {
  createCustomer,
  createInvoice,
  createTaxRate,
  tenantApi,
  type Api,
} from '../invoices/fixtures.ts';

export {
  assertError,
  createCustomer,
  createInvoice,
  createTaxRate,
  einvoiceTenant,
  startInvoiceApp,
  tenantApi,
  type Api,
} from '../invoices/fixtures.ts';

export interface InvoiceSpec {
  customerId: string;
  lines?: Record<string, unknown>[];
  defaultTaxRates?: string[];
  daysUntilDue?: number;
}

/** An issued (open) invoice; 100.00 on one line unless told otherwise. */
export async function openInvoice(api: Api, spec: InvoiceSpec) {
  const draft = await createInvoice(api, {
    lines: [{ description: 'Consulting', unitAmount: 10000 }],
    ...spec,
  });
  const res = await api.post(`/v1/invoices/${draft.id}/issue`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.status, 'open');
  return res.body;
}

/** A fresh tenant (numbers start at CN-000001) with a customer and two VAT rates. */
export async function seller(server: TestServer) {
  const { api, key } = await tenantApi(server);
  const customer = await createCustomer(api);
  const vat = await createTaxRate(api, { percentage: 19 });
  const reduced = await createTaxRate(api, { percentage: 7, displayName: 'VAT reduced' });
  /** An open invoice of 100.00 + 19 % VAT unless told otherwise. */
  const invoice = (spec: Partial<InvoiceSpec> = {}) =>
    openInvoice(api, { customerId: customer.id, defaultTaxRates: [vat.id], ...spec });
  return { api, key, customer, vat, reduced, invoice };
}

export async function credit(api: Api, body: Record<string, unknown>, status = 201) {
  const res = await api.post('/v1/credit-notes', body);
  assert.equal(res.status, status, res.text);
  return res.body;
}

export async function getInvoice(api: Api, id: string) {
  const res = await api.get(`/v1/invoices/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** What a credit note could have changed for this tenant: invoices, credit notes, events. */
export async function tenantState(db: Db, tenantId: string) {
  const one = async (sql: string) => (await db.query(sql, [tenantId])).rows;
  return {
    invoices: await one(
      `SELECT id, status, amount_credited, out_of_band_amount, amount_remaining, paid_at,
              updated_at FROM invoices WHERE tenant_id = $1 ORDER BY id`,
    ),
    creditNotes: await one(`SELECT id FROM credit_notes WHERE tenant_id = $1 ORDER BY id`),
    lines: await one(`SELECT id FROM credit_note_lines WHERE tenant_id = $1 ORDER BY id`),
    counters: await one(
      `SELECT environment, last_number FROM credit_note_number_counters WHERE tenant_id = $1`,
    ),
    events: await one(`SELECT id FROM events WHERE tenant_id = $1 ORDER BY id`),
  };
}

/** The sum of a field over a list of objects. */
export const total = <T>(items: readonly T[], pick: (item: T) => number) =>
  items.reduce((sum, item) => sum + pick(item), 0);
