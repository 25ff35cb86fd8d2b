// Set-up shared by the payment tests: open invoices and payments made over the API, and the
// events the database holds for an object.
import assert from 'node:assert/strict';
import type { Db } from '../../src/db/pool.ts';
import { createInvoice, type Api } from '../invoices/fixtures.ts';

export {
  assertError,
  createCustomer,
  createInvoice,
  createTaxRate,
  startInvoiceApp,
  tenantApi,
  type Api,
} from '../invoices/fixtures.ts';
export { getInvoice, openInvoice, seller, credit } from '../credit-notes/fixtures.ts';

/**
 * Records a payment and expects it to be accepted; returns the payment as it is read later,
 * without the state of its invoice that the answer adds (`invoice`, see recording.test.ts).
 */
export async function pay(api: Api, invoiceId: string, body: Record<string, unknown>) {
  const res = await api.post(`/v1/invoices/${invoiceId}/payments`, {
    method: 'bank_transfer',
    ...body,
  });
  assert.equal(res.status, 201, res.text);
  const { invoice, ...payment } = res.body;
  assert.equal(invoice.id, invoiceId);
  return payment;
}

/** The types of the events of one object, oldest first. */
export async function eventTypes(db: Db, tenantId: string, objectId: string): Promise<string[]> {
  const { rows } = await db.query<{ type: string }>(
    `SELECT type FROM events WHERE tenant_id = $1 AND object_id = $2 ORDER BY created_at, id`,
    [tenantId, objectId],
  );
  return rows.map((r) => r.type);
}

/** A date `days` after today (UTC), YYYY-MM-DD; negative: before. */
export function daysFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** An issued invoice made from this body (100.00 on one line unless it says otherwise). */
export async function issuedInvoice(api: Api, body: Record<string, unknown>) {
  const draft = await createInvoice(api, {
    lines: [{ description: 'Consulting', unitAmount: 10000 }],
    ...body,
  });
  const res = await api.post(`/v1/invoices/${draft.id}/issue`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}
