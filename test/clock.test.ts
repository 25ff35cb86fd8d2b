// The server reads the time from the clock it is started with (src/clock.ts), not from the
// wall clock: a test drives it instead of waiting, and the worker's schedule runs on it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCustomer, openInvoice } from './credit-notes/fixtures.ts';
import {
  client,
  createTenantWithKey,
  createTestDatabase,
  drivenClock,
  startTestServer,
  waitFor,
} from './helpers.ts';

const clock = drivenClock(new Date('2031-03-10T12:00:00Z'));
const server = await startTestServer(await createTestDatabase(), {}, undefined, clock);
const key = await createTenantWithKey(server.db);
const api = client(server.url, key.secret);

describe('the server clock', () => {
  it('dates an issued invoice by the clock the server was given', async () => {
    const customer = await createCustomer(api);
    const invoice = await openInvoice(api, { customerId: customer.id });
    assert.equal(invoice.issuedAt, '2031-03-10T12:00:00.000Z');
  });

  it('judges "in the future" by that clock, and follows it when it moves', async () => {
    const customer = await createCustomer(api);
    const invoice = await openInvoice(api, { customerId: customer.id });
    const pay = (receivedAt: string) =>
      api.post(`/v1/invoices/${invoice.id}/payments`, {
        amount: 100,
        method: 'bank_transfer',
        receivedAt,
      });
    // Past for the server's clock, though the wall clock has not reached it.
    assert.equal((await pay('2031-03-01T00:00:00Z')).status, 201);
    const later = '2031-04-01T00:00:00Z';
    const refused = await pay(later);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.param, 'receivedAt');
    clock.advance(30 * 24 * 3600 * 1000);
    assert.equal((await pay(later)).status, 201);
  });
});

describe('the worker on the server clock', () => {
  it('judges overdue by the clock, and runs dunning once the clock passes its time', async () => {
    const customer = await createCustomer(api);
    const invoice = await openInvoice(api, { customerId: customer.id, daysUntilDue: 1 });
    assert.equal(invoice.overdue, false);
    clock.advance(2 * 24 * 3600 * 1000);
    assert.equal((await api.get(`/v1/invoices/${invoice.id}`)).body.overdue, true);
    // Dunning runs every five minutes of the clock: moved two days on, it is due now, and
    // records invoice.overdue without real waiting (5 s is a bound, not a schedule).
    const event = await waitFor(
      async () =>
        (
          await server.db.query<{ data: { object: { overdue: boolean } } }>(
            `SELECT data FROM events
              WHERE tenant_id = $1 AND type = 'invoice.overdue' AND object_id = $2`,
            [key.tenantId, invoice.id],
          )
        ).rows[0],
      'invoice.overdue',
      5000,
    );
    assert.equal(event.data.object.overdue, true);
  });
});
