// Every change under every proration behaviour, on Apr 10 of a 30-day April (f = 21/30): an
// upgrade (3,000 → 5,000), a downgrade (5,000 → 3,000) and a quantity change (1 → 3 of 3,000),
// each with create_prorations, always_invoice and none, and what the May invoice then bills.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { advance, clockCustomer, createClock, createPrice, invoicesOf } from './fixtures.ts';

const server = await startInvoiceApp();
const { api } = await tenantApi(server);
const basic = await createPrice(api, { unitAmount: 3000, name: 'Basic' });
const pro = await createPrice(api, { unitAmount: 5000, name: 'Pro' });

type Behaviour = 'create_prorations' | 'always_invoice' | 'none';
interface Case {
  change: string;
  from: { id: string };
  to: (item: string) => Record<string, unknown>;
  behaviour: Behaviour;
  /** The invoice made by the change (always_invoice), its lines; null: none. */
  now: number[] | null;
  /** A credit note on April's invoice, its total; null: none. */
  note: number | null;
  may: number[];
}

const upgrade = (item: string) => ({ id: item, priceId: pro.id });
const downgrade = (item: string) => ({ id: item, priceId: basic.id });
const three = (item: string) => ({ id: item, quantity: 3 });

const cases: Case[] = [
  {
    change: 'upgrade',
    from: basic,
    to: upgrade,
    behaviour: 'create_prorations',
    now: null,
    note: null,
    may: [5000, -2100, 3500],
  },
  {
    change: 'upgrade',
    from: basic,
    to: upgrade,
    behaviour: 'always_invoice',
    now: [-2100, 3500],
    note: null,
    may: [5000],
  },
  {
    change: 'upgrade',
    from: basic,
    to: upgrade,
    behaviour: 'none',
    now: null,
    note: null,
    may: [5000],
  },
  {
    change: 'downgrade',
    from: pro,
    to: downgrade,
    behaviour: 'create_prorations',
    now: null,
    note: null,
    may: [3000, -3500, 2100],
  },
  {
    change: 'downgrade',
    from: pro,
    to: downgrade,
    behaviour: 'always_invoice',
    now: null,
    note: 3500,
    may: [3000, 2100],
  },
  {
    change: 'downgrade',
    from: pro,
    to: downgrade,
    behaviour: 'none',
    now: null,
    note: null,
    may: [3000],
  },
  {
    change: 'quantity 1 → 3',
    from: basic,
    to: three,
    behaviour: 'create_prorations',
    now: null,
    note: null,
    may: [9000, -2100, 6300],
  },
  {
    change: 'quantity 1 → 3',
    from: basic,
    to: three,
    behaviour: 'always_invoice',
    now: [-2100, 6300],
    note: null,
    may: [9000],
  },
  {
    change: 'quantity 1 → 3',
    from: basic,
    to: three,
    behaviour: 'none',
    now: null,
    note: null,
    may: [9000],
  },
];

const amounts = (lines: { amount: number }[]) => lines.map((l) => l.amount);

describe('every change under every proration behaviour', () => {
  for (const c of cases) {
    it(`${c.change} with ${c.behaviour}`, async () => {
      const clock = await createClock(api, '2027-04-01T00:00:00.000Z');
      const customer = await clockCustomer(api, clock.id);
      const created = await api.post('/v1/subscriptions', {
        customerId: customer.id,
        items: [{ priceId: c.from.id }],
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.id as string;
      await advance(api, clock.id, '2027-04-10T00:00:00.000Z');
      const changed = await api.patch(`/v1/subscriptions/${id}`, {
        items: [c.to(created.body.items[0].id)],
        prorationBehavior: c.behaviour,
      });
      assert.equal(changed.status, 200, changed.text);
      const afterChange = await invoicesOf(api, id);
      assert.deepEqual(
        afterChange.slice(1).map((i) => amounts(i.lines)),
        c.now === null ? [] : [c.now],
      );
      const notes = await api.get(`/v1/credit-notes?invoiceId=${created.body.latestInvoiceId}`);
      assert.deepEqual(
        notes.body.data.map((n: { total: number }) => n.total),
        c.note === null ? [] : [c.note],
      );
      await advance(api, clock.id, '2027-05-01T02:00:00.000Z');
      const invoices = await invoicesOf(api, id);
      assert.deepEqual(amounts(invoices.at(-1)!.lines), c.may);
    });
  }
});
