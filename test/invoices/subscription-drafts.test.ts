// The invoices subscriptions make (src/invoices/subscription-drafts.ts): drafts made and
// extended inside a unit of work, with lines priced by a price's scheme (unitAmount null), a
// negative proration line and the period of each line, then issued over the API, with the
// periods on the PDF, the hosted page and the e-invoices (BG-26) and Peppol's R120 exact.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unitOfWork, writtenValue } from '../../src/db/unit-of-work.ts';
import {
  addSubscriptionLines,
  createSubscriptionDraft,
  linesBelowZero,
  type PricedLine,
  type SubscriptionDraft,
} from '../../src/invoices/service.ts';
import { operator } from '../../src/tenancy.ts';
import { pageTexts } from '../documents/pdf-reader.ts';
import { readXmlStrictly } from '../documents/strict-xml.ts';
import { all, micros, parseXml, text, type XmlNode } from '../documents/einvoice/xml-reading.ts';
import { fetchPage, pagePath } from '../hosted/fixtures.ts';
import { assertError, createInvoice, einvoiceTenant, startInvoiceApp } from './fixtures.ts';

const server = await startInvoiceApp();

type Tenant = Awaited<ReturnType<typeof einvoiceTenant>>;

/** A period of a subscription in Amsterdam: local midnights, and the days the documents print. */
function period(start: string, end: string, startDate: string, endDate: string) {
  return { start: new Date(start), end: new Date(end), startDate, endDate };
}
const JANUARY = period('2026-12-31T23:00:00Z', '2027-01-31T23:00:00Z', '2027-01-01', '2027-01-31');
const DECEMBER = period('2026-11-30T23:00:00Z', '2026-12-31T23:00:00Z', '2026-12-01', '2026-12-31');
const REST_OF_JANUARY = period(
  '2027-01-15T10:30:00Z',
  '2027-01-31T23:00:00Z',
  '2027-01-15',
  '2027-01-31',
);

function line(overrides: Partial<PricedLine> & Pick<PricedLine, 'amount'>): PricedLine {
  return {
    description: 'Pro plan',
    quantity: 1,
    unitAmount: null,
    unitCode: 'C62',
    taxRates: null,
    period: JANUARY,
    priceId: 'price_pro',
    subscriptionItemId: 'si_pro',
    ...overrides,
  };
}

/** Per unit, tiered (amount ≠ quantity × anything whole), a proration credit and its charge. */
function subscriptionLines(vat: string): PricedLine[] {
  return [
    line({ quantity: 3, unitAmount: 2900, amount: 8700 }),
    line({
      description: 'API calls',
      quantity: 12345,
      amount: 9876,
      taxRates: [vat],
      period: DECEMBER,
      priceId: 'price_calls',
      subscriptionItemId: 'si_calls',
    }),
    line({
      description: 'Unused time on Pro plan',
      quantity: 3,
      amount: -4210,
      period: REST_OF_JANUARY,
    }),
    line({
      description: 'Remaining time on Business plan',
      quantity: 3,
      amount: 7777,
      period: REST_OF_JANUARY,
      priceId: 'price_business',
    }),
  ];
}

function draftOf(tenant: Tenant, lines: PricedLine[], subscriptionId = 'sub_1'): SubscriptionDraft {
  return {
    customerId: tenant.customer.id,
    currency: 'eur',
    subscriptionId,
    billingReason: 'subscription_create',
    daysUntilDue: 14,
    defaultTaxRates: [tenant.vat.id],
    lines,
  };
}

/** Runs `work` as the subscription's own unit of work would. */
async function inUnitOfWork<T>(
  tenant: Tenant,
  work: (uow: Parameters<Parameters<typeof unitOfWork>[2]>[0]) => Promise<T>,
): Promise<T> {
  const request = { actor: operator(tenant.key.tenantId, 'test') };
  return writtenValue(await unitOfWork(server.db, request, work));
}

const eventsOf = async (tenant: Tenant, invoiceId: string) =>
  (
    await server.db.query(
      `SELECT type FROM events WHERE tenant_id = $1 AND object_id = $2 ORDER BY created_at, id`,
      [tenant.key.tenantId, invoiceId],
    )
  ).rows.map((r) => r.type as string);

async function bytes(tenant: Tenant, path: string): Promise<Buffer> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${tenant.key.secret}` },
  });
  assert.equal(res.status, 200, path);
  return Buffer.from(await res.arrayBuffer());
}

const childNames = (node: XmlNode) =>
  [...node.childNodes].filter((c) => c.nodeType === 1).map((c) => c.localName);

describe('invoices made by subscriptions', () => {
  it('makes a draft inside the unit of work, priced like any draft, with each line’s period, price and item', async () => {
    const tenant = await einvoiceTenant(server);
    const now = server.clock.now();
    const made = await inUnitOfWork(tenant, (uow) =>
      createSubscriptionDraft(uow, draftOf(tenant, subscriptionLines(tenant.vat.id)), now),
    );
    const shown = await tenant.api.get(`/v1/invoices/${made.id}`);
    assert.equal(shown.status, 200, shown.text);
    const invoice = shown.body;
    assert.equal(invoice.status, 'draft');
    assert.equal(invoice.subscriptionId, 'sub_1');
    assert.equal(invoice.billingReason, 'subscription_create');
    assert.equal(invoice.daysUntilDue, 14);
    assert.deepEqual(invoice.servicePeriod, { start: '2026-12-01', end: '2027-01-31' });
    assert.equal(invoice.supplyDate, null);
    assert.deepEqual(
      invoice.lines.map((l: any) => [l.quantity, l.unitAmount, l.amount, l.priceId]),
      [
        [3, 2900, 8700, 'price_pro'],
        [12345, null, 9876, 'price_calls'],
        [3, null, -4210, 'price_pro'],
        [3, null, 7777, 'price_business'],
      ],
    );
    assert.deepEqual(invoice.lines[0].period, {
      start: '2026-12-31T23:00:00.000Z',
      end: '2027-01-31T23:00:00.000Z',
      startDate: '2027-01-01',
      endDate: '2027-01-31',
    });
    assert.equal(invoice.lines[2].period.start, '2027-01-15T10:30:00.000Z');
    assert.equal(invoice.lines[1].subscriptionItemId, 'si_calls');
    assert.deepEqual(invoice.lines[1].taxRates, [tenant.vat.id]);
    // One rate over the sum of the lines, rounded once: 22143 × 21 % = 4650.03.
    assert.equal(invoice.subtotal, 22143);
    assert.equal(invoice.tax, 4650);
    assert.equal(invoice.total, 26793);
    assert.equal(invoice.amountRemaining, 26793);
    assert.deepEqual(
      invoice.taxAmounts.map((t: any) => [t.taxRateId, t.taxableAmount, t.amount]),
      [[tenant.vat.id, 22143, 4650]],
    );
    assert.deepEqual(invoice.einvoice, { ready: true, missing: [] });
    assert.deepEqual(made, { ...invoice, hostedInvoiceUrl: null });
    assert.deepEqual(await eventsOf(tenant, made.id), ['invoice.created']);
  });

  it('issues it with the periods on the PDF, the hosted page and both e-invoices (BG-26), R120 exact', async () => {
    const tenant = await einvoiceTenant(server);
    const draft = await inUnitOfWork(tenant, (uow) =>
      createSubscriptionDraft(
        uow,
        draftOf(tenant, subscriptionLines(tenant.vat.id)),
        server.clock.now(),
      ),
    );
    const issued = await tenant.api.post(`/v1/invoices/${draft.id}/issue`);
    assert.equal(issued.status, 200, issued.text);
    assert.deepEqual(issued.body.einvoice, { ready: true, missing: [] });

    const pdf = (await pageTexts(await bytes(tenant, `/v1/invoices/${draft.id}/pdf`))).join('\n');
    for (const printed of [
      '1 Jan 2027 – 31 Jan 2027',
      '1 Dec 2026 – 31 Dec 2026',
      '15 Jan 2027 – 31 Jan 2027',
    ]) {
      assert.ok(pdf.includes(printed), `the PDF prints ${printed}`);
    }
    assert.match(pdf, /Unused time on Pro plan 3 pc – 21% -€42\.10/);
    // The invoice period spans its lines' (BG-14), printed instead of a date of supply.
    assert.match(pdf, /Service period 1 Dec 2026 – 31 Jan 2027/);

    const page = await fetchPage(server.url, pagePath(issued.body.hostedInvoiceUrl));
    assert.equal(page.status, 200);
    assert.match(page.text, /API calls<span class="period">1 Dec 2026 – 31 Dec 2026<\/span>/);

    const ublText = (
      await bytes(tenant, `/v1/invoices/${draft.id}/e-invoice?format=ubl`)
    ).toString();
    readXmlStrictly(ublText);
    const ublLines = all(parseXml(ublText), 'cac:InvoiceLine');
    assert.deepEqual(
      ublLines.map((l) => [
        text(l, 'cac:InvoicePeriod/cbc:StartDate'),
        text(l, 'cac:InvoicePeriod/cbc:EndDate'),
      ]),
      [
        ['2027-01-01', '2027-01-31'],
        ['2026-12-01', '2026-12-31'],
        ['2027-01-15', '2027-01-31'],
        ['2027-01-15', '2027-01-31'],
      ],
    );
    for (const ublLine of ublLines) {
      // The schema's order: the period after the line amount, before the item.
      assert.deepEqual(childNames(ublLine).slice(2), [
        'LineExtensionAmount',
        'InvoicePeriod',
        'Item',
        'Price',
      ]);
      // PEPPOL-EN16931-R120: net = quantity × price / base quantity, exactly.
      const base = text(ublLine, 'cac:Price/cbc:BaseQuantity');
      assert.equal(
        micros(text(ublLine, 'cbc:InvoicedQuantity')) *
          micros(text(ublLine, 'cac:Price/cbc:PriceAmount')),
        micros(text(ublLine, 'cbc:LineExtensionAmount')) *
          (base === null ? 1_000_000n : micros(base)),
      );
      assert.ok(micros(text(ublLine, 'cac:Price/cbc:PriceAmount')) >= 0n, 'BR-27');
    }
    // The proration credit: a negative quantity at a positive price for all three units.
    assert.equal(text(ublLines[2]!, 'cbc:InvoicedQuantity'), '-3');
    assert.equal(text(ublLines[2]!, 'cac:Price/cbc:PriceAmount'), '42.10');
    assert.equal(text(ublLines[2]!, 'cac:Price/cbc:BaseQuantity'), '3');

    const ciiText = (
      await bytes(tenant, `/v1/invoices/${draft.id}/e-invoice?format=cii`)
    ).toString();
    readXmlStrictly(ciiText);
    const ciiLines = all(
      parseXml(ciiText),
      'rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem',
    );
    assert.equal(ciiLines.length, 4);
    const settlement = all(ciiLines[1]!, 'ram:SpecifiedLineTradeSettlement')[0]!;
    assert.deepEqual(childNames(settlement), [
      'ApplicableTradeTax',
      'BillingSpecifiedPeriod',
      'SpecifiedTradeSettlementLineMonetarySummation',
    ]);
    const start = all(
      settlement,
      'ram:BillingSpecifiedPeriod/ram:StartDateTime/udt:DateTimeString',
    );
    assert.equal(start[0]!.textContent, '20261201');
    assert.equal(start[0]!.getAttribute('format'), '102');
    assert.equal(
      text(settlement, 'ram:BillingSpecifiedPeriod/ram:EndDateTime/udt:DateTimeString'),
      '20261231',
    );
  });

  it('adds late lines to a draft in a unit of work, repriced; refuses once it is issued', async () => {
    const tenant = await einvoiceTenant(server);
    const [first] = subscriptionLines(tenant.vat.id);
    const draft = await inUnitOfWork(tenant, (uow) =>
      createSubscriptionDraft(
        uow,
        { ...draftOf(tenant, [first!], 'sub_late'), billingReason: 'subscription_cycle' },
        server.clock.now(),
      ),
    );
    const late = line({
      description: 'Late API calls',
      quantity: 7,
      amount: 13,
      period: DECEMBER,
      priceId: 'price_calls',
      subscriptionItemId: 'si_calls',
    });
    const updated = await inUnitOfWork(tenant, (uow) =>
      addSubscriptionLines(uow, draft.id, [late], server.clock.now()),
    );
    assert.deepEqual(
      updated.lines.map((l) => [l.description, l.amount]),
      [
        ['Pro plan', 8700],
        ['Late API calls', 13],
      ],
    );
    assert.equal(updated.subtotal, 8713);
    assert.deepEqual(updated.servicePeriod, { start: '2026-12-01', end: '2027-01-31' });
    assert.equal(updated.tax, 1830);
    assert.equal((await tenant.api.get(`/v1/invoices/${draft.id}`)).body.total, 10543);
    assert.deepEqual(await eventsOf(tenant, draft.id), ['invoice.created', 'invoice.updated']);

    assert.equal((await tenant.api.post(`/v1/invoices/${draft.id}/issue`)).status, 200);
    await assert.rejects(
      inUnitOfWork(tenant, (uow) =>
        addSubscriptionLines(uow, draft.id, [late], server.clock.now()),
      ),
      (error: { code?: string }) => error.code === 'state_invalid',
    );
    assert.equal((await tenant.api.get(`/v1/invoices/${draft.id}`)).body.lines.length, 2);
  });

  it('refuses lines that add up below 0, in all or under one rate, and makes nothing', async () => {
    const tenant = await einvoiceTenant(server);
    const credit = line({ amount: -5000, period: REST_OF_JANUARY });
    assert.equal(linesBelowZero([credit, line({ amount: 4999 })], []), true);
    // Under two rates: the credit's rate alone goes below 0, though the whole does not.
    const charge = line({ amount: 9000, taxRates: [] });
    assert.equal(linesBelowZero([credit, charge], [tenant.vat.id]), true);
    assert.equal(linesBelowZero([credit, line({ amount: 5000 })], [tenant.vat.id]), false);
    for (const lines of [
      [credit, line({ amount: 4999 })],
      [credit, charge],
    ]) {
      await assert.rejects(
        inUnitOfWork(tenant, (uow) =>
          createSubscriptionDraft(uow, draftOf(tenant, lines, 'sub_negative'), server.clock.now()),
        ),
        (error: { code?: string; param?: string }) =>
          error.code === 'parameter_invalid' && error.param === 'lines',
      );
    }
    const listed = await tenant.api.get('/v1/invoices?subscriptionId=sub_negative');
    assert.deepEqual(listed.body.data, []);
  });

  it('refuses a line whose unitAmount does not give its amount, as a defect, and stores nothing', async () => {
    const tenant = await einvoiceTenant(server);
    const wrong = line({ quantity: 3, unitAmount: 2900, amount: 8701 });
    await assert.rejects(
      inUnitOfWork(tenant, (uow) =>
        createSubscriptionDraft(uow, draftOf(tenant, [wrong], 'sub_wrong'), server.clock.now()),
      ),
      RangeError,
    );
    assert.deepEqual((await tenant.api.get('/v1/invoices?subscriptionId=sub_wrong')).body.data, []);
  });

  it('keeps amount = quantity × unitAmount for every line without a price, in the database itself', async () => {
    const tenant = await einvoiceTenant(server);
    const manual = await createInvoice(tenant.api, {
      customerId: tenant.customer.id,
      lines: [{ description: 'Consulting', quantity: 2, unitAmount: 5000 }],
    });
    assert.equal(manual.billingReason, 'manual');
    assert.equal(manual.subscriptionId, null);
    assert.deepEqual(
      [manual.lines[0].period, manual.lines[0].priceId, manual.lines[0].subscriptionItemId],
      [null, null, null],
    );
    const insert = (unitAmount: number | null, amount: number, priceId: string | null) =>
      server.db.query(
        `INSERT INTO invoice_lines (tenant_id, environment, invoice_id, id, position, description,
                                    quantity, unit_amount, amount, price_id)
         VALUES ($1, 'test', $2, $3, 9, 'x', 3, $4, $5, $6)`,
        [
          tenant.key.tenantId,
          manual.id,
          `il_${amount}_${String(priceId)}`,
          unitAmount,
          amount,
          priceId,
        ],
      );
    const refused = { code: '23514' };
    await assert.rejects(insert(null, 100, null), refused);
    await assert.rejects(insert(2900, 8701, null), refused);
    await assert.rejects(insert(2900, 8701, 'price_pro'), refused);
    await insert(null, 8701, 'price_pro');
    // Manual lines still need a unit amount over the API.
    const line = await tenant.api.post(`/v1/invoices/${manual.id}/lines`, { description: 'x' });
    assertError(line, 400, 'parameter_missing', 'unitAmount');
  });

  it('lists the invoices of a subscription with ?subscriptionId, and none of the others', async () => {
    const tenant = await einvoiceTenant(server);
    const make = (subscriptionId: string) =>
      inUnitOfWork(tenant, (uow) =>
        createSubscriptionDraft(
          uow,
          draftOf(tenant, [line({ amount: 1000 })], subscriptionId),
          server.clock.now(),
        ),
      );
    const a1 = await make('sub_a');
    const b = await make('sub_b');
    const a2 = await make('sub_a');
    await createInvoice(tenant.api, { customerId: tenant.customer.id, lines: [] });
    const ids = async (query: string) =>
      (await tenant.api.get(`/v1/invoices${query}`)).body.data.map((i: { id: string }) => i.id);
    assert.deepEqual(await ids('?subscriptionId=sub_a'), [a2.id, a1.id]);
    assert.deepEqual(await ids('?subscriptionId=sub_a&limit=1'), [a2.id]);
    assert.deepEqual(await ids(`?subscriptionId=sub_b&customerId=${tenant.customer.id}`), [b.id]);
    assert.deepEqual(await ids('?subscriptionId=sub_b&status=open'), []);
    assert.deepEqual(await ids('?subscriptionId=sub_none'), []);
    assert.equal((await ids('')).length, 4);
    // Its cursor pages on within the subscription, and is bound to it.
    const cursor = (await tenant.api.get('/v1/invoices?subscriptionId=sub_a&limit=1')).body
      .nextCursor;
    assert.deepEqual(await ids(`?subscriptionId=sub_a&limit=1&cursor=${cursor}`), [a1.id]);
    const elsewhere = await tenant.api.get(`/v1/invoices?subscriptionId=sub_b&cursor=${cursor}`);
    assertError(elsewhere, 400, 'cursor_invalid');
  });
});
