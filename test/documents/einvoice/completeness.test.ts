import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toCii } from '../../../src/documents/einvoice/cii.ts';
import {
  EinvoiceDataMissingError,
  einvoiceGaps,
  gapFields,
  missingEinvoiceData,
} from '../../../src/documents/einvoice/completeness.ts';
import { toUbl } from '../../../src/documents/einvoice/ubl.ts';
import type { DocumentModel, Party } from '../../../src/documents/model.ts';
import { buildModel, party, type ModelSpec } from './build-model.ts';
import { corpus } from './corpus.ts';

const seller = party('FR', 'Dupont SARL', {
  vatId: 'FR40303265045',
  electronicAddress: { scheme: '9957', value: 'FR40303265045' },
});
const buyer = party('BE', 'Gent Retail BV', {
  vatId: 'BE0123456749',
  electronicAddress: { scheme: '9925', value: 'BE0123456749' },
});
const s20 = { id: 'txr_s20', category: 'S', percentage: '20' } as const;

function model(overrides: Partial<ModelSpec> = {}): DocumentModel {
  return buildModel({
    seller,
    buyer,
    rates: [s20],
    lines: [{ description: 'Licence', quantity: 2, unitAmount: 4900 }],
    ...overrides,
  });
}

const missing = (m: DocumentModel, syntax?: 'ubl' | 'cii') => missingEinvoiceData(m, syntax);

describe('missingEinvoiceData', () => {
  it('is empty for every complete corpus document, and names the gaps of the refused ones', () => {
    for (const { name, model: m, refused } of corpus) {
      for (const syntax of ['ubl', 'cii'] as const) {
        assert.deepEqual(
          missing(m, syntax).sort(),
          [...(refused?.[syntax]?.missing ?? [])].sort(),
          `${name} ${syntax}`,
        );
      }
    }
  });

  it("names the seller's and the customer's missing identity and address", () => {
    const m = model({
      seller: { ...seller, name: ' ', vatId: null, address: null },
      buyer: { ...buyer, name: '', address: { ...buyer.address!, country: null } },
    });
    assert.deepEqual(missing(m).sort(), [
      'customer.address.country',
      'customer.name',
      'seller.address.country',
      'seller.legalName',
      'seller.taxId',
    ]);
  });

  it('refuses country codes and VAT prefixes that are not ISO 3166 (BR-CL-14, BR-CO-09)', () => {
    const m = model({
      seller: { ...seller, vatId: '12-3456789' },
      buyer: { ...buyer, address: { ...buyer.address!, country: 'UK' } },
    });
    assert.deepEqual(missing(m).sort(), ['customer.address.country', 'seller.taxId']);
    assert.deepEqual(missing(model({ seller: { ...seller, vatId: 'EL123456789' } }), 'cii'), []);
  });

  it('gives every line exactly one VAT rate (BR-CO-04)', () => {
    const m = model({
      rates: [s20, { id: 'txr_city', category: 'S', percentage: '2' }],
      lines: [
        { description: 'Two rates', quantity: 1, unitAmount: 1000, rates: ['txr_s20', 'txr_city'] },
        { description: 'No rate', quantity: 1, unitAmount: 1000, rates: [] },
        { description: 'One rate', quantity: 1, unitAmount: 1000, rates: ['txr_s20'] },
      ],
    });
    assert.deepEqual(missing(m, 'cii'), ['lines[0].taxRates', 'lines[1].taxRates']);
    assert.throws(() => toCii(m), EinvoiceDataMissingError);
  });

  it('names empty descriptions and unit codes that are not Recommendation 20 codes', () => {
    const m = model({
      lines: [{ description: '  ', quantity: 1, unitAmount: 100, unitCode: 'hours' }],
    });
    assert.deepEqual(missing(m, 'cii'), ['lines[0].description', 'lines[0].unitCode']);
  });

  it('needs the legal reason of an exemption and one reason per category (BR-E-10, BR-E-01)', () => {
    const noReason = model({ rates: [{ id: 'txr_e', category: 'E', percentage: '0' }] });
    assert.deepEqual(missing(noReason), ['taxRates[txr_e].exemptionReason']);
    const twoReasons = model({
      rates: [
        { id: 'txr_e1', category: 'E', percentage: '0', exemptionReason: 'Article 132(1)(i)' },
        { id: 'txr_e2', category: 'E', percentage: '0', exemptionReason: 'Article 135(1)(a)' },
      ],
      lines: [
        { description: 'Course', quantity: 1, unitAmount: 1000, rates: ['txr_e1'] },
        { description: 'Insurance', quantity: 1, unitAmount: 1000, rates: ['txr_e2'] },
      ],
    });
    assert.deepEqual(missing(twoReasons), ['taxRates[txr_e2].exemptionReason']);
  });

  it('writes reverse charge, intra-community and export reasons as VATEX codes when the text is absent', () => {
    for (const category of ['AE', 'K', 'G'] as const) {
      const m = model({
        rates: [{ id: 'txr_x', category, percentage: '0' }],
        taxExempt: 'reverse',
      });
      assert.deepEqual(missing(m), [], category);
    }
  });

  it('requires the VAT ids reverse charge and intra-community supplies need (BR-AE-02, BR-IC-02)', () => {
    for (const category of ['AE', 'K'] as const) {
      const m = model({
        buyer: { ...buyer, vatId: null },
        rates: [{ id: 'txr_x', category, percentage: '0' }],
      });
      assert.deepEqual(missing(m), ['customer.taxIds'], category);
    }
    const noSellerVat = model({
      seller: { ...seller, vatId: null },
      rates: [{ id: 'txr_k', category: 'K', percentage: '0' }],
    });
    assert.deepEqual(missing(noSellerVat), ['seller.taxId']);
  });

  it('refuses a standard rate that charged no tax, as for an exempt customer (BR-S-09), and S at 0 % (BR-S-05)', () => {
    assert.deepEqual(missing(model({ taxExempt: 'exempt' })), ['taxRates[txr_s20].category']);
    assert.deepEqual(
      missing(model({ rates: [{ id: 'txr_s0', category: 'S', percentage: '0' }] })),
      ['taxRates[txr_s0].category'],
    );
    const zeroRatedWithTax = model({ rates: [{ id: 'txr_z', category: 'Z', percentage: '5' }] });
    assert.deepEqual(missing(zeroRatedWithTax), ['taxRates[txr_z].category']);
  });

  it('keeps documents outside the scope of VAT apart and identifies their seller otherwise (BR-O-*)', () => {
    const o = {
      id: 'txr_o',
      category: 'O',
      percentage: '0',
      exemptionReason: 'Not subject to VAT',
    } as const;
    assert.deepEqual(missing(model({ rates: [o] })), ['seller.companyRegistration']);
    assert.deepEqual(
      missing(model({ rates: [o], seller: { ...seller, companyRegistration: 'RCS Paris 123' } })),
      [],
    );
  });

  it('refuses KWD amounts with a third decimal and currencies the rules do not list', () => {
    const fils = model({
      currency: 'kwd',
      lines: [{ description: 'Part', quantity: 1, unitAmount: 1235 }],
    });
    assert.deepEqual(missing(fils, 'cii'), [
      'amountRemaining',
      'lines[0].amount',
      'tax',
      'taxAmounts[0].amount',
      'taxAmounts[0].taxableAmount',
      'total',
      'totalExcludingTax',
    ]);
    const whole = model({
      currency: 'kwd',
      lines: [{ description: 'Part', quantity: 1, unitAmount: 1250 }],
    });
    assert.deepEqual(missing(whole), []);
    assert.match(toCii(whole), /<ram:GrandTotalAmount>1.50<\/ram:GrandTotalAmount>/);
    assert.deepEqual(missing(model({ currency: 'bgn' }), 'cii'), ['currency']);
    assert.deepEqual(missing(model({ currency: 'xcg' }), 'ubl'), ['currency']);
    assert.deepEqual(missing(model({ currency: 'xcg' }), 'cii'), []);
  });

  it('asks for a due date or payment terms when an amount is due (BR-CO-25)', () => {
    assert.deepEqual(missing(model({ dueDate: null })), ['dueDate']);
    assert.deepEqual(missing(model({ dueDate: null, paymentTerms: 'Payable on receipt.' })), []);
    assert.deepEqual(missing(model({ kind: 'credit_note' })), ['paymentTerms']);
  });

  it('asks Peppol for electronic addresses from its EAS list, with valid check digits (R010, R020, CL008)', () => {
    const m = model({
      seller: { ...seller, electronicAddress: { scheme: 'EM', value: 'billing@dupont.example' } },
      buyer: { ...buyer, electronicAddress: null },
    });
    assert.deepEqual(missing(m, 'ubl'), ['customer.electronicAddress', 'seller.electronicAddress']);
    assert.deepEqual(missing(m, 'cii'), []);
    const badGln = model({
      buyer: { ...buyer, electronicAddress: { scheme: '0088', value: '4098765432100' } },
    });
    assert.deepEqual(missing(badGln, 'ubl'), ['customer.electronicAddress']);
    assert.equal(einvoiceGaps(badGln, 'ubl')[0]!.rule, 'PEPPOL-COMMON-R040');
  });

  it('asks for a buyer reference or purchase order on Peppol (R003)', () => {
    assert.deepEqual(missing(model({ buyerReference: null }), 'ubl'), ['buyerReference']);
    assert.deepEqual(missing(model({ buyerReference: null, purchaseOrder: 'PO-1' }), 'ubl'), []);
  });

  it('applies the national Peppol rules of the seller', () => {
    const de = (extra: Partial<Party> = {}) =>
      party('DE', 'Muster GmbH', {
        vatId: 'DE123456789',
        electronicAddress: { scheme: '9930', value: 'DE123456789' },
        ...extra,
      });
    const domestic = model({ seller: de(), buyer: de({ name: 'Kunde AG' }) });
    assert.deepEqual(missing(domestic, 'ubl').sort(), ['seller.iban', 'seller.phone']);
    assert.deepEqual(missing(domestic, 'cii'), []);
    const dk = party('DK', 'Design ApS', {
      vatId: 'DK12345678',
      electronicAddress: { scheme: '0184', value: 'DK12345678' },
    });
    assert.deepEqual(missing(model({ seller: dk }), 'ubl'), ['seller.companyRegistration']);
    assert.deepEqual(
      missing(model({ seller: { ...dk, companyRegistration: '12345678' } }), 'ubl'),
      [],
    );
    const nl = party('NL', 'Tech BV', {
      vatId: 'NL123456789B01',
      companyRegistration: 'KvK Amsterdam',
      electronicAddress: { scheme: '9944', value: 'NL123456789B01' },
    });
    assert.deepEqual(missing(model({ seller: nl }), 'ubl').sort(), [
      'seller.companyRegistration',
      'seller.iban',
    ]);
    const gr = party('FR', 'Athens SA', {
      vatId: 'EL123456789',
      electronicAddress: { scheme: '9933', value: '123456789' },
    });
    assert.ok(missing(model({ seller: gr }), 'ubl').includes('number'));
  });

  it('names dates that are not dates and a period that ends before it starts', () => {
    const m = {
      ...model(),
      dueDate: '2026-13-45',
      servicePeriod: { start: '2026-11-30', end: '2026-11-01' },
    };
    assert.deepEqual(missing(m).sort(), ['dueDate', 'servicePeriod']);
  });

  it('refuses drafts and unnumbered documents', () => {
    assert.deepEqual(missing({ ...model(), draft: true, number: null }), ['number']);
  });

  it('names sums that do not add up instead of writing a document that fails BR-CO-*', () => {
    const m = model();
    const broken = { ...m, totals: { ...m.totals, total: m.totals.total + 1 } };
    assert.deepEqual(missing(broken).sort(), ['amountRemaining', 'total']);
  });
});

describe('gapFields', () => {
  it('names each field once, sorted by path with line numbers in numeric order', () => {
    const gap = (field: string, rule: string) => ({ field, rule, reason: '' });
    const found = [
      gap('seller.electronicAddress', 'PEPPOL-EN16931-R020'),
      gap('lines[10].taxRates', 'BR-CO-04'),
      gap('customer.electronicAddress', 'PEPPOL-EN16931-R010'),
      gap('lines[2].taxRates', 'BR-CO-04'),
      gap('customer.electronicAddress', 'PEPPOL-EN16931-CL008'),
    ];
    const expected = [
      'customer.electronicAddress',
      'lines[2].taxRates',
      'lines[10].taxRates',
      'seller.electronicAddress',
    ];
    assert.deepEqual(gapFields(found), expected);
    assert.deepEqual(gapFields([...found].reverse()), expected);
  });
});

describe('toUbl and toCii', () => {
  it('throw EinvoiceDataMissingError listing the missing fields', () => {
    const m = model({
      buyer: { ...buyer, vatId: null },
      rates: [{ id: 'txr_ae', category: 'AE', percentage: '0' }],
    });
    for (const write of [toUbl, toCii]) {
      assert.throws(
        () => write(m),
        (error: unknown) =>
          error instanceof EinvoiceDataMissingError &&
          error.missing.join() === 'customer.taxIds' &&
          error.gaps[0]!.rule === 'BR-AE-02',
      );
    }
  });
});
