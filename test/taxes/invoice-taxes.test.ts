import assert from 'node:assert/strict';
import { setSettings } from '../helpers.ts';
import { describe, it } from 'node:test';
import { extractText } from 'unpdf';
import {
  assertError,
  createCustomer,
  createInvoice,
  createTaxRate,
  startInvoiceApp,
  tenantApi,
} from '../invoices/fixtures.ts';

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
await setSettings(server.db, key.tenantId, {
  legalName: 'Seller AG',
  taxId: 'CHE-123.456.789 MWST',
  address: { country: 'CH' },
});
const customer = await createCustomer(api);
const vat19 = await createTaxRate(api, { displayName: 'VAT', percentage: 19, country: 'DE' });

const totals = (invoice: any) => ({
  subtotal: invoice.subtotal,
  tax: invoice.tax,
  totalExcludingTax: invoice.totalExcludingTax,
  total: invoice.total,
  amountRemaining: invoice.amountRemaining,
  taxAmounts: invoice.taxAmounts.map((t: any) => [
    t.displayName,
    t.percentage,
    t.inclusive,
    t.taxableAmount,
    t.amount,
  ]),
});

async function issued(body: Record<string, unknown>) {
  const draft = await createInvoice(api, { customerId: customer.id, ...body });
  const res = await api.post(`/v1/invoices/${draft.id}/issue`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function pdfText(invoiceId: string): Promise<string> {
  const res = await fetch(`${server.url}/v1/invoices/${invoiceId}/pdf`, {
    headers: { authorization: `Bearer ${key.secret}` },
  });
  assert.equal(res.status, 200);
  const { text } = await extractText(new Uint8Array(await res.arrayBuffer()), { mergePages: true });
  return text.replace(/\s+/g, ' ');
}

describe('taxes on invoices: worked examples', () => {
  it('rounds 19 % VAT once over 3 × 33.33 EUR: tax 19.00, not 3 × 6.33', async () => {
    const invoice = await issued({
      defaultTaxRates: [vat19.id],
      lines: [1, 2, 3].map((i) => ({ description: `Item ${i}`, unitAmount: 3333 })),
    });
    assert.deepEqual(totals(invoice), {
      subtotal: 9999,
      tax: 1900,
      totalExcludingTax: 9999,
      total: 11899,
      amountRemaining: 11899,
      taxAmounts: [['VAT', 19, false, 9999, 1900]],
    });
  });

  it('charges 8.875 % sales tax: 100.00 → 8.88', async () => {
    const ny = await createTaxRate(api, {
      displayName: 'Sales tax',
      percentage: 8.875,
      taxType: 'sales_tax',
    });
    const invoice = await issued({
      currency: 'usd',
      lines: [{ description: 'Bagels', quantity: 40, unitAmount: 250, taxRates: [ny.id] }],
    });
    assert.deepEqual(totals(invoice), {
      subtotal: 10000,
      tax: 888,
      totalExcludingTax: 10000,
      total: 10888,
      amountRemaining: 10888,
      taxAmounts: [['Sales tax', 8.875, false, 10000, 888]],
    });
  });

  it('takes 7.7 % inclusive VAT out of CHF 100.00: 7.15, total unchanged', async () => {
    const ch = await createTaxRate(api, { displayName: 'MWST', percentage: 7.7, inclusive: true });
    const invoice = await issued({
      currency: 'chf',
      defaultTaxRates: [ch.id],
      lines: [{ description: 'Uhrservice', unitAmount: 10000 }],
    });
    assert.deepEqual(totals(invoice), {
      subtotal: 10000,
      tax: 715,
      totalExcludingTax: 9285,
      total: 10000,
      amountRemaining: 10000,
      taxAmounts: [['MWST', 7.7, true, 9285, 715]],
    });
  });

  it('taxes yen and dinar in their minor units', async () => {
    const jct = await createTaxRate(api, { displayName: 'JCT', percentage: 10 });
    const yen = await issued({
      currency: 'jpy',
      defaultTaxRates: [jct.id],
      lines: [{ description: 'Tea', quantity: 3, unitAmount: 333 }],
    });
    assert.deepEqual([yen.subtotal, yen.tax, yen.total], [999, 100, 1099]);
    const five = await createTaxRate(api, { displayName: 'VAT', percentage: 5 });
    const dinar = await issued({
      currency: 'kwd',
      defaultTaxRates: [five.id],
      lines: [{ description: 'Dates', quantity: 3, unitAmount: 1234 }],
    });
    assert.deepEqual([dinar.subtotal, dinar.tax, dinar.total], [3702, 185, 3887]);
  });

  it('keeps two rates apart on one invoice, per line rates replacing the defaults', async () => {
    const state = await createTaxRate(api, { displayName: 'State', percentage: 4 });
    const city = await createTaxRate(api, { displayName: 'City', percentage: 4.5 });
    const invoice = await issued({
      currency: 'usd',
      defaultTaxRates: [state.id],
      lines: [
        { description: 'In the city', unitAmount: 10000, taxRates: [state.id, city.id] },
        { description: 'Shipped out', unitAmount: 5000 },
        { description: 'Untaxed', unitAmount: 700, taxRates: [] },
      ],
    });
    assert.deepEqual(totals(invoice), {
      subtotal: 15700,
      tax: 1050,
      totalExcludingTax: 15700,
      total: 16750,
      amountRemaining: 16750,
      taxAmounts: [
        ['State', 4, false, 15000, 600],
        ['City', 4.5, false, 10000, 450],
      ],
    });
  });

  it('charges exempt and reverse-charge customers no tax, keeping the rate at 0', async () => {
    for (const taxExempt of ['exempt', 'reverse']) {
      const who = await createCustomer(api, { taxExempt });
      const draft = await createInvoice(api, {
        customerId: who.id,
        defaultTaxRates: [vat19.id],
        lines: [{ description: 'x', unitAmount: 9999 }],
      });
      const invoice = (await api.post(`/v1/invoices/${draft.id}/issue`)).body;
      assert.deepEqual(totals(invoice), {
        subtotal: 9999,
        tax: 0,
        totalExcludingTax: 9999,
        total: 9999,
        amountRemaining: 9999,
        taxAmounts: [['VAT', 19, false, 9999, 0]],
      });
    }
  });

  it("prices with the customer's tax status when issued", async () => {
    const who = await createCustomer(api, { taxExempt: 'exempt' });
    const draft = await createInvoice(api, {
      customerId: who.id,
      defaultTaxRates: [vat19.id],
      lines: [{ description: 'x', unitAmount: 10000 }],
    });
    assert.equal(draft.tax, 0);
    await api.patch(`/v1/customers/${who.id}`, { taxExempt: 'none' });
    const invoice = (await api.post(`/v1/invoices/${draft.id}/issue`)).body;
    assert.equal(invoice.tax, 1900);
    assert.equal(invoice.customer.taxExempt, 'none');
  });
});

describe('taxes on invoices: rules', () => {
  it('refuses inclusive and exclusive rates on one invoice', async () => {
    const incl = await createTaxRate(api, {
      displayName: 'Incl',
      percentage: 7.7,
      inclusive: true,
    });
    assertError(
      await api.post('/v1/invoices', {
        customerId: customer.id,
        currency: 'eur',
        defaultTaxRates: [vat19.id, incl.id],
      }),
      400,
      'parameter_invalid',
      'defaultTaxRates',
    );
    const draft = await createInvoice(api, {
      customerId: customer.id,
      defaultTaxRates: [vat19.id],
      lines: [{ description: 'a', unitAmount: 100 }],
    });
    assertError(
      await api.post(`/v1/invoices/${draft.id}/lines`, {
        description: 'b',
        unitAmount: 100,
        taxRates: [incl.id],
      }),
      400,
      'parameter_invalid',
      'taxRates',
    );
    assertError(
      await api.patch(`/v1/invoices/${draft.id}`, {
        lines: [{ description: 'b', unitAmount: 100, taxRates: [incl.id] }],
      }),
      400,
      'parameter_invalid',
      'lines',
    );
    const unchanged = await api.get(`/v1/invoices/${draft.id}`);
    assert.equal(unchanged.body.lines.length, 1);
  });

  it('refuses more than 5 rates on a line, unknown rates and repeated ones', async () => {
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push((await createTaxRate(api, { percentage: 1 })).id);
    const post = (taxRates: string[]) =>
      api.post('/v1/invoices', {
        customerId: customer.id,
        currency: 'eur',
        lines: [{ description: 'x', unitAmount: 100, taxRates }],
      });
    assertError(await post(ids), 400, 'parameter_invalid', 'lines.0.taxRates');
    assertError(await post([ids[0]!, ids[0]!]), 400, 'parameter_invalid', 'lines.0.taxRates');
    assertError(await post(['txr_nothing']), 404, 'resource_missing', 'lines');
    const five = await post(ids.slice(0, 5));
    assert.equal(five.status, 201, five.text);
    assert.equal(five.body.tax, 5);
  });

  it('never changes an issued invoice when its rate changes or is deactivated', async () => {
    const rate = await createTaxRate(api, { displayName: 'GST', percentage: 10, taxType: 'gst' });
    const invoice = await issued({
      currency: 'aud',
      defaultTaxRates: [rate.id],
      lines: [{ description: 'x', unitAmount: 12345 }],
    });
    assert.equal(invoice.tax, 1235);
    await api.patch(`/v1/tax-rates/${rate.id}`, { displayName: 'Renamed', active: false });
    assertError(
      await api.patch(`/v1/tax-rates/${rate.id}`, { percentage: 15 }),
      400,
      'parameter_invalid',
    );
    const later = await api.get(`/v1/invoices/${invoice.id}`);
    assert.deepEqual(later.body, invoice);
    assert.equal(later.body.taxAmounts[0].displayName, 'GST');
    const paid = await api.post(`/v1/invoices/${invoice.id}/pay`);
    assert.equal(paid.body.amountPaid, 13580);
    assert.deepEqual(paid.body.taxAmounts, invoice.taxAmounts);
  });

  it('prints the rate, the tax and the tax ids on the PDF, and "Reverse charge"', async () => {
    const who = await createCustomer(api, {
      name: 'Buyer BV',
      taxExempt: 'reverse',
      taxIds: [{ type: 'eu_vat', value: 'NL123456789B01' }],
    });
    const reverse = await createInvoice(api, {
      customerId: who.id,
      defaultTaxRates: [vat19.id],
      lines: [{ description: 'Consulting', unitAmount: 100000 }],
    });
    await api.post(`/v1/invoices/${reverse.id}/issue`);
    const text = await pdfText(reverse.id);
    for (const expected of [
      'Seller AG',
      'CHE-123.456.789 MWST',
      'NL123456789B01',
      'Reverse charge',
      '€1,000.00',
      '€0.00',
    ]) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}`);
    }

    const taxed = await issued({
      defaultTaxRates: [vat19.id],
      lines: [1, 2, 3].map((i) => ({ description: `Item ${i}`, unitAmount: 3333 })),
    });
    const taxedText = await pdfText(taxed.id);
    for (const expected of ['19%', '€99.99', '€19.00', 'Total excluding VAT', '€118.99']) {
      assert.ok(taxedText.includes(expected), `the PDF shows ${expected}`);
    }
    assert.ok(!taxedText.includes('Reverse charge'));
    // Reverse charge shows 0 %, never the domestic rate.
    assert.ok(!text.includes('19%'), 'the reverse-charge PDF shows no 19%');
  });
});
