// Text typed by a third party (a customer's name, a line, a memo, the tenant's settings, a tax
// rate's name, which the tax report shows) cannot corrupt an issued record: every UBL, CII and embedded factur-x.xml is
// well-formed XML (read by a strict parser) and says exactly what was sent, and the PDF shows
// the same text. Characters XML 1.0 cannot carry are U+FFFD in both (docs/einvoices.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { embeddedFacturX, pageTexts } from './pdf-reader.ts';
import { allTexts, readXmlStrictly } from './strict-xml.ts';
import { credit } from '../credit-notes/fixtures.ts';
import { createCustomer, createTaxRate, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';

const server = await startInvoiceApp();

/** What each field holds: markup, references, control characters, line breaks, formulas. */
const HOSTILE = {
  legalName: 'Seller &e; GmbH <x>',
  sellerStreet: 'Straße &#1; 1 &amp; Hof',
  accountName: 'Konto &lt;b&gt; "Haupt"',
  customerName: 'Smith &e; Ltd \'quoted\' "double"',
  customerStreet: 'Tom &lt;b&gt; Road\u0001',
  customerStreet2: '<x>Unit 4</x> &#x26;',
  customerCity: '=Bruxelles\u0007',
  line: 'Consulting &e;\r\nsecond\rthird\nfourth\ttab',
  memo: ' +Memo &#1; <b>bold</b>\u000b]]>',
  reason: 'Credit &e; <x>\r\n-1200',
};

/**
 * What the documents show for a text: XML 1.0's forbidden characters as U+FFFD; an e-invoice
 * leaves out white space around a value (EN 16931 terms are trimmed).
 */
const shown = (text: string) =>
  text.replace(/[^\t\n\r\u0020-\uD7FF\uD800-\uDFFF\uE000-\uFFFD]/g, '\uFFFD').trim();

/** Text as a PDF reader extracts it, compared across line breaks and runs of white space. */
const flat = (text: string) =>
  text
    .replace(/[\u200b]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

async function bytes(secret: string, path: string): Promise<Buffer> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  const body = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, `${path}: ${body.toString()}`);
  return body;
}

async function hostileTenant() {
  const { api, key } = await tenantApi(server);
  const settings = await api.patch('/v1/settings', {
    legalName: HOSTILE.legalName,
    taxId: 'NL123456789B01',
    companyRegistration: '12345678',
    email: 'billing@tulip.example',
    address: {
      line1: HOSTILE.sellerStreet,
      city: 'Amsterdam',
      postalCode: '1015 CS',
      country: 'NL',
    },
    paymentDetails: {
      iban: 'NL91ABNA0417164300',
      bic: 'ABNANL2A',
      accountName: HOSTILE.accountName,
    },
  });
  assert.equal(settings.status, 200, settings.text);
  const customer = await createCustomer(api, {
    name: HOSTILE.customerName,
    email: 'ap@brussels.example',
    address: {
      line1: HOSTILE.customerStreet,
      line2: HOSTILE.customerStreet2,
      city: HOSTILE.customerCity,
      postalCode: '1000',
      country: 'BE',
    },
    taxIds: [{ type: 'eu_vat', value: 'BE0123456749' }],
  });
  const vat = await createTaxRate(api, { percentage: 21, displayName: '\u200b@VAT &e; <21>' });
  return { api, key, customer, vat };
}

describe('hostile text in issued documents', () => {
  it('writes every e-invoice well-formed, saying exactly what was sent and what the PDF shows', async () => {
    const { api, key, customer, vat } = await hostileTenant();
    const draft = await api.post('/v1/invoices', {
      currency: 'eur',
      customerId: customer.id,
      defaultTaxRates: [vat.id],
      lines: [{ description: HOSTILE.line, unitAmount: 10000 }],
      daysUntilDue: 14,
      memo: HOSTILE.memo,
    });
    assert.equal(draft.status, 201, draft.text);
    const issued = await api.post(`/v1/invoices/${draft.body.id}/issue`);
    assert.equal(issued.status, 200, issued.text);
    const id = draft.body.id;

    const pdf = await bytes(key.secret, `/v1/invoices/${id}/pdf`);
    const ubl = readXmlStrictly(
      (await bytes(key.secret, `/v1/invoices/${id}/e-invoice`)).toString(),
    );
    const cii = readXmlStrictly(
      (await bytes(key.secret, `/v1/invoices/${id}/e-invoice?format=cii`)).toString(),
    );
    const facturX = readXmlStrictly(embeddedFacturX(pdf));
    assert.deepEqual(facturX, cii, 'the PDF carries the CII served');

    const names = (leaves: typeof ubl, name: string) => leaves.texts.get(name) ?? [];
    // UBL: the seller's and the buyer's legal names, streets, city, line, note, account.
    assert.deepEqual(names(ubl, 'RegistrationName'), [
      shown(HOSTILE.legalName),
      shown(HOSTILE.customerName),
    ]);
    assert.deepEqual(names(ubl, 'StreetName'), [
      shown(HOSTILE.sellerStreet),
      shown(HOSTILE.customerStreet),
    ]);
    assert.deepEqual(names(ubl, 'AdditionalStreetName'), [shown(HOSTILE.customerStreet2)]);
    assert.ok(names(ubl, 'CityName').includes(shown(HOSTILE.customerCity)));
    assert.equal(names(ubl, 'Note')[0], shown(HOSTILE.memo));
    assert.ok(names(ubl, 'Name').includes(shown(HOSTILE.line)), 'the line, CR and LF kept');
    assert.ok(names(ubl, 'Name').includes(shown(HOSTILE.accountName)));
    // CII: the same texts in its own elements.
    for (const value of [
      HOSTILE.legalName,
      HOSTILE.customerName,
      HOSTILE.sellerStreet,
      HOSTILE.customerStreet,
      HOSTILE.customerStreet2,
      HOSTILE.customerCity,
      HOSTILE.line,
      HOSTILE.memo,
      HOSTILE.accountName,
    ]) {
      assert.ok(allTexts(cii).includes(shown(value)), `CII says ${JSON.stringify(value)}`);
    }
    for (const control of ['\u0001', '\u0007', '\u000b']) {
      assert.ok(!allTexts(ubl).some((t) => t.includes(control)), 'no control character in XML');
    }

    // The PDF shows the same text, the forbidden characters as U+FFFD too.
    const text = flat((await pageTexts(pdf)).join('\n'));
    for (const value of [
      HOSTILE.legalName,
      HOSTILE.customerName,
      HOSTILE.sellerStreet,
      HOSTILE.customerStreet,
      HOSTILE.customerStreet2,
      HOSTILE.customerCity,
      HOSTILE.memo,
      HOSTILE.accountName,
    ]) {
      assert.ok(text.includes(flat(shown(value))), `the PDF shows ${JSON.stringify(value)}`);
    }
    for (const part of ['Consulting &e;', 'second', 'third', 'fourth tab']) {
      assert.ok(text.includes(part), `the PDF shows the line's ${JSON.stringify(part)}`);
    }
  });

  it('writes a credit note’s e-invoices well-formed, its reason as sent', async () => {
    const { api, key, customer, vat } = await hostileTenant();
    const draft = await api.post('/v1/invoices', {
      currency: 'eur',
      customerId: customer.id,
      defaultTaxRates: [vat.id],
      lines: [{ description: HOSTILE.line, unitAmount: 10000 }],
      daysUntilDue: 14,
    });
    assert.equal((await api.post(`/v1/invoices/${draft.body.id}/issue`)).status, 200);
    const note = await credit(api, {
      invoiceId: draft.body.id,
      amount: 1210,
      reason: 'order_change',
      memo: HOSTILE.reason,
    });
    const pdf = await bytes(key.secret, `/v1/credit-notes/${note.id}/pdf`);
    const ubl = readXmlStrictly(
      (await bytes(key.secret, `/v1/credit-notes/${note.id}/e-invoice`)).toString(),
    );
    const cii = readXmlStrictly(
      (await bytes(key.secret, `/v1/credit-notes/${note.id}/e-invoice?format=cii`)).toString(),
    );
    assert.deepEqual(readXmlStrictly(embeddedFacturX(pdf)), cii);
    for (const leaves of [ubl, cii]) {
      for (const value of [HOSTILE.legalName, HOSTILE.customerName, HOSTILE.reason]) {
        assert.ok(allTexts(leaves).includes(shown(value)), `says ${JSON.stringify(value)}`);
      }
    }
    const text = flat((await pageTexts(pdf)).join('\n'));
    assert.ok(text.includes(flat(HOSTILE.reason)), 'the PDF shows the memo');
  });
});
