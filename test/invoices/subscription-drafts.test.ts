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
  lineQuantity,
  linesBelowZero,
  type PricedLine,
  type SubscriptionDraft,
} from '../../src/invoices/service.ts';
import { operator } from '../../src/tenancy.ts';
import { pageTexts } from '../documents/pdf-reader.ts';
import { readXmlStrictly } from '../documents/strict-xml.ts';
import {
  all,
  micros,
  parseXml,
  scaled,
  text,
  type XmlNode,
} from '../documents/einvoice/xml-reading.ts';
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

/**
 * Metered prices billed in arrears, amounts as the price computed them: 12.5 kWh at 0.10, a
 * ten-thousandth of a GB-month whose exact 0.625 cents round to 1, and a tier's base fee at
 * zero usage.
 */
function meteredLines(): PricedLine[] {
  const metered = (description: string, item: string) => ({
    description,
    period: DECEMBER,
    priceId: `price_${item}`,
    subscriptionItemId: `si_${item}`,
  });
  return [
    line({
      ...metered('Charging', 'kwh'),
      ...lineQuantity('12.5'),
      unitAmount: 10,
      amount: 125,
      unitCode: 'KWH',
    }),
    line({
      ...metered('Storage', 'storage'),
      ...lineQuantity('0.000125'),
      amount: 1,
      unitCode: 'E34',
    }),
    line({ ...metered('Support (base fee)', 'support'), quantity: 0, amount: 500 }),
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

/** The lines of the invoice's UBL and CII, each document read strictly first. */
async function einvoiceLines(tenant: Tenant, invoiceId: string) {
  const read = async (format: string) => {
    const xml = (
      await bytes(tenant, `/v1/invoices/${invoiceId}/e-invoice?format=${format}`)
    ).toString();
    readXmlStrictly(xml);
    return parseXml(xml);
  };
  return {
    ubl: all(await read('ubl'), 'cac:InvoiceLine'),
    cii: all(
      await read('cii'),
      'rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem',
    ),
  };
}

/**
 * PEPPOL-EN16931-R120, exactly: net = quantity × price / base quantity + line charges, with
 * quantities to 12 places; and BR-27, the price is never negative.
 */
function assertLineNetExact(ublLine: XmlNode): void {
  const price = micros(text(ublLine, 'cac:Price/cbc:PriceAmount'));
  const base = text(ublLine, 'cac:Price/cbc:BaseQuantity');
  const charges = all(ublLine, 'cac:AllowanceCharge/cbc:Amount').map((a) => micros(a.textContent));
  assert.equal(
    scaled(text(ublLine, 'cbc:InvoicedQuantity'), 12) * price,
    (micros(text(ublLine, 'cbc:LineExtensionAmount')) - (charges[0] ?? 0n)) *
      (base === null ? 10n ** 12n : scaled(base, 12)),
    'PEPPOL-EN16931-R120',
  );
  assert.ok(price >= 0n, 'BR-27');
}

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

    const { ubl: ublLines, cii: ciiLines } = await einvoiceLines(tenant, draft.id);
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
      assertLineNetExact(ublLine);
    }
    // The proration credit: a negative quantity at a positive price for all three units.
    assert.equal(text(ublLines[2]!, 'cbc:InvoicedQuantity'), '-3');
    assert.equal(text(ublLines[2]!, 'cac:Price/cbc:PriceAmount'), '42.10');
    assert.equal(text(ublLines[2]!, 'cac:Price/cbc:BaseQuantity'), '3');

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
  it('bills a metered line’s exact decimal quantity: quantityDecimal, with quantity its ceiling', async () => {
    const tenant = await einvoiceTenant(server);
    const made = await inUnitOfWork(tenant, (uow) =>
      createSubscriptionDraft(
        uow,
        draftOf(tenant, meteredLines(), 'sub_metered'),
        server.clock.now(),
      ),
    );
    const shown = await tenant.api.get(`/v1/invoices/${made.id}`);
    assert.equal(shown.status, 200, shown.text);
    assert.deepEqual(
      shown.body.lines.map((l: any) => [l.quantity, l.quantityDecimal, l.unitAmount, l.amount]),
      [
        [13, '12.5', 10, 125],
        [1, '0.000125', null, 1],
        [0, null, null, 500],
      ],
    );
    // 626 × 21 % = 131.46, rounded once.
    assert.deepEqual([shown.body.subtotal, shown.body.tax, shown.body.total], [626, 131, 757]);
    // A base fee at zero usage makes a complete e-invoice (a line charge at quantity 0).
    assert.deepEqual(shown.body.einvoice, { ready: true, missing: [] });
    assert.deepEqual(made, { ...shown.body, hostedInvoiceUrl: null });
    const listed = await tenant.api.get('/v1/invoices?subscriptionId=sub_metered');
    assert.equal(listed.body.data[0].lines[1].quantityDecimal, '0.000125');
  });

  it('prints the decimal quantity in the customer’s language on the PDF and the hosted page, and writes it into both e-invoices with R120 exact', async () => {
    const tenant = await einvoiceTenant(server);
    const draft = await inUnitOfWork(tenant, (uow) =>
      createSubscriptionDraft(uow, draftOf(tenant, meteredLines()), server.clock.now()),
    );
    const pdfText = async () =>
      (await pageTexts(await bytes(tenant, `/v1/invoices/${draft.id}/pdf`))).join('\n');
    // The draft's preview speaks the customer's language now: English.
    const english = await pdfText();
    assert.match(english, /Charging 12\.5 kWh €0\.10 21% €1\.25/);
    assert.match(english, /Storage 0\.000125 E34 – 21% €0\.01/);
    assert.match(english, /Support \(base fee\) 0 pc – 21% €5\.00/);

    await tenant.api.patch(`/v1/customers/${tenant.customer.id}`, { locale: 'de' });
    const issued = await tenant.api.post(`/v1/invoices/${draft.id}/issue`);
    assert.equal(issued.status, 200, issued.text);
    assert.deepEqual(issued.body.einvoice, { ready: true, missing: [] });
    const german = await pdfText();
    assert.match(german, /Charging 12,5 kWh 0,10 € 21 % 1,25 €/);
    assert.match(german, /Storage 0,000125 E34 – 21 % 0,01 €/);
    const page = await fetchPage(server.url, pagePath(issued.body.hostedInvoiceUrl));
    assert.equal(page.status, 200);
    assert.match(page.text, /<td class="num">12,5 kWh<\/td>/);
    assert.match(page.text, /<td class="num">0,000125 E34<\/td>/);

    const { ubl: ublLines, cii: ciiLines } = await einvoiceLines(tenant, draft.id);
    assert.deepEqual(
      ublLines.map((l) => [
        text(l, 'cbc:InvoicedQuantity'),
        all(l, 'cbc:InvoicedQuantity')[0]!.getAttribute('unitCode'),
        text(l, 'cac:Price/cbc:PriceAmount'),
        text(l, 'cac:Price/cbc:BaseQuantity'),
        text(l, 'cbc:LineExtensionAmount'),
      ]),
      [
        ['12.5', 'KWH', '0.10', null, '1.25'],
        ['0.000125', 'E34', '80.00', null, '0.01'],
        ['0', 'C62', '0.00', null, '5.00'],
      ],
    );
    // The base fee: quantity 0, and its amount as a line charge (BG-28), in the schema's order.
    const fee = ublLines[2]!;
    assert.deepEqual(childNames(fee).slice(2), [
      'LineExtensionAmount',
      'InvoicePeriod',
      'AllowanceCharge',
      'Item',
      'Price',
    ]);
    assert.equal(text(fee, 'cac:AllowanceCharge/cbc:ChargeIndicator'), 'true');
    assert.equal(text(fee, 'cac:AllowanceCharge/cbc:AllowanceChargeReason'), 'Pauschale');
    assert.equal(text(fee, 'cac:AllowanceCharge/cbc:Amount'), '5.00');
    ublLines.forEach(assertLineNetExact);

    assert.deepEqual(
      ciiLines.map((l) => [
        text(l, 'ram:SpecifiedLineTradeDelivery/ram:BilledQuantity'),
        text(l, 'ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount'),
      ]),
      [
        ['12.5', '0.10'],
        ['0.000125', '80.00'],
        ['0', '0.00'],
      ],
    );
    const settlement = all(ciiLines[2]!, 'ram:SpecifiedLineTradeSettlement')[0]!;
    assert.deepEqual(childNames(settlement), [
      'ApplicableTradeTax',
      'BillingSpecifiedPeriod',
      'SpecifiedTradeAllowanceCharge',
      'SpecifiedTradeSettlementLineMonetarySummation',
    ]);
    assert.equal(
      text(settlement, 'ram:SpecifiedTradeAllowanceCharge/ram:ChargeIndicator/udt:Indicator'),
      'true',
    );
    assert.equal(text(settlement, 'ram:SpecifiedTradeAllowanceCharge/ram:ActualAmount'), '5.00');
  });

  it('makes a line’s quantity fields from an exact quantity, and refuses inconsistent ones as a defect', async () => {
    assert.deepEqual(lineQuantity('12.5'), { quantity: 13, quantityDecimal: '12.5' });
    assert.deepEqual(lineQuantity('0.000000000001'), {
      quantity: 1,
      quantityDecimal: '0.000000000001',
    });
    assert.deepEqual(lineQuantity('12.000'), { quantity: 12, quantityDecimal: null });
    assert.deepEqual(lineQuantity(3), { quantity: 3, quantityDecimal: null });
    assert.deepEqual(lineQuantity('0'), { quantity: 0, quantityDecimal: null });
    for (const bad of ['-1', '1e3', '0.0000000000001', '01.5', '', 1.5, -1]) {
      assert.throws(() => lineQuantity(bad), RangeError, String(bad));
    }
    const tenant = await einvoiceTenant(server);
    const cases: [PricedLine, RegExp][] = [
      [line({ quantity: 12, quantityDecimal: '12.5', amount: 125 }), /not the ceiling/],
      [line({ quantity: 13, quantityDecimal: '12.50', amount: 125 }), /shortest text/],
      [line({ quantity: 12, quantityDecimal: '12', amount: 125 }), /not whole/],
      // The exact 0.00125 cents are no whole amount: such a line has no unit amount.
      [line({ ...lineQuantity('0.000125'), unitAmount: 10, amount: 0 }), /quantity × unitAmount/],
    ];
    for (const [wrong, message] of cases) {
      await assert.rejects(
        inUnitOfWork(tenant, (uow) =>
          createSubscriptionDraft(uow, draftOf(tenant, [wrong], 'sub_wrong'), server.clock.now()),
        ),
        { name: 'RangeError', message },
      );
    }
    assert.deepEqual((await tenant.api.get('/v1/invoices?subscriptionId=sub_wrong')).body.data, []);
  });

  it('keeps a decimal quantity to priced lines, not whole, under its ceiling, in the database itself', async () => {
    const tenant = await einvoiceTenant(server);
    const manual = await createInvoice(tenant.api, {
      customerId: tenant.customer.id,
      lines: [{ description: 'Consulting', quantity: 2, unitAmount: 5000 }],
    });
    assert.equal(manual.lines[0].quantityDecimal, null);
    let n = 0;
    const insert = (
      quantity: number,
      decimal: string,
      unitAmount: number | null,
      amount: number,
      priceId: string | null = 'price_kwh',
    ) =>
      server.db.query(
        `INSERT INTO invoice_lines (tenant_id, environment, invoice_id, id, position, description,
                                    quantity, quantity_decimal, unit_amount, amount, price_id)
         VALUES ($1, 'test', $2, $3, $4, 'x', $5, $6, $7, $8, $9)`,
        [
          tenant.key.tenantId,
          manual.id,
          `il_decimal_${++n}`,
          10 + n,
          quantity,
          decimal,
          unitAmount,
          amount,
          priceId,
        ],
      );
    const refused = { code: '23514' };
    await assert.rejects(insert(13, '12.5', 10, 125, null), refused);
    await assert.rejects(insert(12, '12.5', null, 125), refused);
    await assert.rejects(insert(12, '12', null, 125), refused);
    await assert.rejects(insert(0, '-0.5', null, 125), refused);
    await assert.rejects(insert(13, '12.5', 10, 130), refused);
    await insert(13, '12.5', 10, 125);
    await insert(1, '0.000000000001', null, 0);
    const shown = await tenant.api.get(`/v1/invoices/${manual.id}`);
    assert.deepEqual(
      shown.body.lines.map((l: any) => l.quantityDecimal),
      [null, '12.5', '0.000000000001'],
    );
  });
});
