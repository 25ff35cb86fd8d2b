// The hooks credit notes use, called as the credit-note service will: inside its own
// transaction, on the real database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { todayUtcOf } from '../../src/clock.ts';
import type { Tx } from '../../src/db/pool.ts';
import { unitOfWork, writtenValue, type UnitOfWork } from '../../src/db/unit-of-work.ts';
import { operator } from '../../src/keys/service.ts';
import {
  applyCreditToInvoice,
  lockInvoiceForCredit,
  reverseCreditOnInvoice,
} from '../../src/invoices/service.ts';
import {
  allocateCredit,
  remainingCreditable,
  type CreditAllocation,
} from '../../src/taxes/service.ts';
import type { TenantScope } from '../../src/tenancy.ts';
import {
  createCustomer,
  createInvoice,
  createTaxRate,
  startInvoiceApp,
  tenantApi,
} from './fixtures.ts';

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const scope: TenantScope = { tenantId: key.tenantId, environment: key.environment };
const today = todayUtcOf(server.clock);
const customer = await createCustomer(api);
const vat = await createTaxRate(api, { percentage: 19 });

const inUnit = async <T>(work: (uow: UnitOfWork) => Promise<T>, on: TenantScope = scope) =>
  writtenValue(await unitOfWork(server.db, { actor: operator(on.tenantId, on.environment) }, work));
const inTx = <T>(work: (tx: Tx) => Promise<T>, on: TenantScope = scope) =>
  inUnit((uow) => work(uow.tx), on);
/** A credit of `amount` on the invoice, locked first in the same unit of work (as the service does). */
const credit = (invoiceId: string, amount: number) =>
  inUnit(async (uow) =>
    applyCreditToInvoice(
      uow,
      await lockInvoiceForCredit(uow.tx, scope, invoiceId, today),
      amount,
      today,
    ),
  );

async function openInvoice(unitAmount = 10000) {
  const draft = await createInvoice(api, {
    customerId: customer.id,
    defaultTaxRates: [vat.id],
    lines: [{ description: 'x', unitAmount }],
  });
  const res = await api.post(`/v1/invoices/${draft.id}/issue`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const lastEvent = async (id: string) =>
  (
    await server.db.query(
      'SELECT type FROM events WHERE tenant_id = $1 AND object_id = $2 ORDER BY created_at DESC, id DESC LIMIT 1',
      [key.tenantId, id],
    )
  ).rows[0]?.type;

describe('credits on invoices', () => {
  it('locks an invoice and returns it with its lines and frozen tax breakdown', async () => {
    const invoice = await openInvoice();
    const { invoice: locked } = await inTx((tx) =>
      lockInvoiceForCredit(tx, scope, invoice.id, today),
    );
    // The invoice as stored and as events carry it: without its hosted link.
    assert.deepEqual(locked, { ...invoice, hostedInvoiceUrl: null });
    assert.equal(locked.taxAmounts[0]!.amount, 1900);
    const other = { tenantId: key.tenantId, environment: 'live' as const };
    await assert.rejects(
      inTx((tx) => lockInvoiceForCredit(tx, other, invoice.id, today)),
      (e: any) => e.code === 'resource_missing',
    );
  });

  it('lowers what an open invoice owes, and pays it when nothing remains', async () => {
    const invoice = await openInvoice(); // total 119.00
    const first = await credit(invoice.id, 1900);
    assert.deepEqual(first.effect, { credited: 1900, outOfBand: 0 });
    assert.equal(first.invoice.status, 'open');
    assert.equal(first.invoice.amountCredited, 1900);
    assert.equal(first.invoice.amountRemaining, 10000);
    assert.equal(await lastEvent(invoice.id), 'invoice.updated');

    const rest = await credit(invoice.id, 10000);
    assert.equal(rest.invoice.status, 'paid');
    assert.ok(rest.invoice.paidAt);
    assert.equal(rest.invoice.amountRemaining, 0);
    assert.equal(rest.invoice.amountPaid, 0);
    assert.equal(rest.invoice.amountCredited, 11900);
    assert.equal(await lastEvent(invoice.id), 'invoice.paid');
  });

  it('records a credit on a paid invoice as refunded outside the API', async () => {
    const invoice = await openInvoice();
    await api.post(`/v1/invoices/${invoice.id}/pay`);
    const { invoice: after, effect } = await credit(invoice.id, 5000);
    assert.deepEqual(effect, { credited: 0, outOfBand: 5000 });
    assert.equal(after.status, 'paid');
    assert.equal(after.outOfBandAmount, 5000);
    assert.equal(after.amountPaid, 11900);
    assert.equal(after.amountRemaining, 0);
    // Reversing it restores the amount and keeps the invoice paid.
    const reversed = await inUnit((uow) => reverseCreditOnInvoice(uow, invoice.id, effect, today));
    assert.equal(reversed.outOfBandAmount, 0);
    assert.equal(reversed.status, 'paid');
    assert.equal(reversed.paidAt, after.paidAt);
  });

  it('returns an invoice to open when the credit that paid it is reversed', async () => {
    const invoice = await openInvoice();
    const half = await credit(invoice.id, 5950);
    const other = await credit(invoice.id, 5950);
    assert.equal(other.invoice.status, 'paid');
    const reopened = await inUnit((uow) =>
      reverseCreditOnInvoice(uow, invoice.id, other.effect, today),
    );
    assert.equal(reopened.status, 'open');
    assert.equal(reopened.paidAt, null);
    assert.equal(reopened.amountCredited, 5950);
    assert.equal(reopened.amountRemaining, 5950);
    assert.equal(await lastEvent(invoice.id), 'invoice.updated');
    const back = await inUnit((uow) => reverseCreditOnInvoice(uow, invoice.id, half.effect, today));
    assert.equal(back.amountCredited, 0);
    assert.equal(back.amountRemaining, 11900);
    // The invoice is then open like any other: it can be paid.
    assert.equal((await api.post(`/v1/invoices/${invoice.id}/pay`)).body.amountPaid, 11900);
  });

  it('refuses credits beyond the total, of nothing, and on other statuses', async () => {
    const invoice = await openInvoice();
    for (const amount of [0, -1, 11901, 1.5]) {
      await assert.rejects(
        credit(invoice.id, amount),
        (e: any) => e.code === 'parameter_invalid' && e.param === 'amount',
        String(amount),
      );
    }
    await credit(invoice.id, 11000);
    await assert.rejects(credit(invoice.id, 901), (e: any) => e.code === 'parameter_invalid');
    const draft = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'x', unitAmount: 100 }],
    });
    const voided = await openInvoice();
    await api.post(`/v1/invoices/${voided.id}/void`);
    const bad = await openInvoice();
    await api.post(`/v1/invoices/${bad.id}/mark-uncollectible`);
    for (const id of [draft.id, voided.id, bad.id]) {
      await assert.rejects(credit(id, 1), (e: any) => e.code === 'state_invalid');
    }
  });

  it('credits the frozen tax exactly with allocations that add up to the total', async () => {
    const invoice = await openInvoice(3333); // 33.33 + 6.33 tax = 39.66
    const breakdown = {
      totalExcludingTax: invoice.totalExcludingTax,
      taxAmounts: invoice.taxAmounts,
    };
    const credits: CreditAllocation[] = [];
    for (const amount of [1000, 1, 2965]) {
      const { invoice: locked } = await inTx((tx) =>
        lockInvoiceForCredit(tx, scope, invoice.id, today),
      );
      assert.equal(locked.status, 'open');
      const allocation = allocateCredit(amount, remainingCreditable(breakdown, credits));
      await credit(invoice.id, allocation.total);
      credits.push(allocation);
    }
    assert.equal(
      credits.reduce((s, c) => s + c.tax, 0),
      invoice.tax,
    );
    const final = (await api.get(`/v1/invoices/${invoice.id}`)).body;
    assert.equal(final.status, 'paid');
    assert.equal(final.amountCredited, invoice.total);
  });
});
