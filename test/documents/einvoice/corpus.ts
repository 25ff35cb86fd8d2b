// The e-invoice corpus: documents that cover every VAT category, both kinds, one and many
// rates, inclusive and exclusive prices, discounts, JPY and KWD, with and without payment
// details, supply date and service period, and the national Peppol rules. `npm run
// conformance` validates each against the official schemas and rules; the unit tests use the
// same models. Entries marked `refused` are incomplete for a syntax on purpose: completeness
// must name the fields, and the document written anyway must fail the rules it names.
import type { EinvoiceSyntax } from '../../../src/documents/einvoice/codes.ts';
import type { DocumentModel } from '../../../src/documents/model.ts';
import { buildModel, party } from './build-model.ts';

export interface CorpusEntry {
  name: string;
  model: DocumentModel;
  /** Syntaxes this model cannot be written in: the fields reported and the rules that fire. */
  refused?: Partial<Record<EinvoiceSyntax, { missing: string[]; rules: string[] }>>;
}

const de = party('DE', 'Muster GmbH', {
  vatId: 'DE123456789',
  companyRegistration: 'HRB 12345, AG München',
  electronicAddress: { scheme: '9930', value: 'DE123456789' },
});
const fr = party('FR', 'Dupont SARL', {
  vatId: 'FR40303265045',
  electronicAddress: { scheme: '9957', value: 'FR40303265045' },
});
const frBuyer = party('FR', 'Client Martin SA', {
  vatId: 'FR82542065479',
  electronicAddress: { scheme: '0009', value: '54206547900017' },
});
const at = party('AT', 'Alpen Handel GmbH', {
  vatId: 'ATU12345678',
  electronicAddress: { scheme: '9914', value: 'ATU12345678' },
});
const atBuyer = party('AT', 'Wiener Café KG', {
  vatId: 'ATU87654321',
  electronicAddress: { scheme: '9914', value: 'ATU87654321' },
});
const be = party('BE', 'Brussels Trading NV', {
  vatId: 'BE0403754877',
  companyRegistration: '0403.754.877',
  electronicAddress: { scheme: '0208', value: '0403754877' },
});
const es = party('ES', 'Comercial Ibérica SL', {
  vatId: 'ESB12345678',
  electronicAddress: { scheme: '9920', value: 'ESB12345678' },
});
const esBuyer = party('ES', 'Hotel Canarias SA', {
  vatId: 'ESA87654321',
  electronicAddress: { scheme: '9920', value: 'ESA87654321' },
});
const us = party('US', 'Acme Corporation', {
  electronicAddress: { scheme: '0060', value: '123456789' },
});
const ch = party('CH', 'Zürcher Verein', {
  electronicAddress: { scheme: '0183', value: 'CHE123456789' },
});
const jp = party('JP', 'Tokyo Trading KK', {
  electronicAddress: { scheme: '0188', value: '1234567890123' },
});
const iban = { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountName: 'Muster GmbH' };
const s19 = { id: 'txr_s19', category: 'S', percentage: '19' } as const;
const s20 = { id: 'txr_s20', category: 'S', percentage: '20' } as const;

export const corpus: CorpusEntry[] = [
  {
    name: 'invoice-s-one-rate',
    model: buildModel({
      seller: de,
      buyer: frBuyer,
      rates: [s19],
      lines: [
        { description: 'Consulting', quantity: 3, unitAmount: 33333, unitCode: 'HUR' },
        { description: 'Travel expenses', quantity: 1, unitAmount: 12050 },
      ],
      payment: iban,
      paymentTerms: 'Payable within 14 days, by 2026-12-08.',
      note: 'Thank you for your business.',
    }),
  },
  {
    name: 'invoice-s-two-rates-inclusive-period',
    model: buildModel({
      seller: at,
      buyer: atBuyer,
      pricesIncludeTax: true,
      rates: [
        { id: 'txr_at20', category: 'S', percentage: '20' },
        { id: 'txr_at10', category: 'S', percentage: '10' },
      ],
      lines: [
        { description: 'Kaffeemaschine', quantity: 3, unitAmount: 19999, rates: ['txr_at20'] },
        {
          description: 'Kaffeebohnen 1 kg',
          quantity: 7,
          unitAmount: 1799,
          rates: ['txr_at10'],
          unitCode: 'KGM',
        },
        {
          description: 'Milch 1 l',
          quantity: 11,
          unitAmount: 129,
          rates: ['txr_at10'],
          unitCode: 'LTR',
        },
        { description: 'Treuerabatt', quantity: 1, unitAmount: -2500, rates: ['txr_at20'] },
      ],
      supplyDate: null,
      servicePeriod: { start: '2026-10-01', end: '2026-10-31' },
      payment: { iban: 'AT611904300234573201', bic: 'BKAUATWW' },
    }),
  },
  {
    name: 'invoice-s-discount-purchase-order-no-payment',
    model: buildModel({
      seller: fr,
      buyer: frBuyer,
      rates: [s20],
      lines: [
        { description: 'Licence annuelle', quantity: 10, unitAmount: 4900 },
        { description: 'Remise fidélité', quantity: 1, unitAmount: -4900 },
        { description: 'Nothing this month', quantity: 0, unitAmount: 1500 },
      ],
      buyerReference: null,
      purchaseOrder: 'PO-2026-117',
    }),
  },
  {
    name: 'invoice-many-rates-z-s-8875-prepaid',
    model: buildModel({
      seller: be,
      buyer: party('BE', 'Gent Retail BV', {
        vatId: 'BE0123456749',
        electronicAddress: { scheme: '9925', value: 'BE0123456749' },
      }),
      rates: [
        { id: 'txr_be21', category: 'S', percentage: '21' },
        { id: 'txr_be6', category: 'S', percentage: '6' },
        { id: 'txr_be0', category: 'Z', percentage: '0' },
        { id: 'txr_odd', category: 'S', percentage: '8.875' },
        { id: 'txr_be21b', category: 'S', percentage: '21' },
      ],
      lines: [
        { description: 'Laptop', quantity: 1, unitAmount: 129900, rates: ['txr_be21'] },
        { description: 'Books', quantity: 4, unitAmount: 1995, rates: ['txr_be6'] },
        { description: 'Newspaper export', quantity: 2, unitAmount: 350, rates: ['txr_be0'] },
        { description: 'Service fee', quantity: 3, unitAmount: 3333, rates: ['txr_odd'] },
        {
          description: 'Monitor (second 21 % rate)',
          quantity: 2,
          unitAmount: 24999,
          rates: ['txr_be21b'],
        },
      ],
      prepaid: 50000,
      payment: { iban: 'BE68539007547034' },
    }),
  },
  {
    name: 'invoice-e-exempt-with-s',
    model: buildModel({
      seller: es,
      buyer: esBuyer,
      rates: [
        {
          id: 'txr_e',
          category: 'E',
          percentage: '0',
          exemptionReason: 'Exento por el artículo 20.Uno.9 LIVA',
        },
        { id: 'txr_es21', category: 'S', percentage: '21' },
      ],
      lines: [
        { description: 'Curso de formación', quantity: 2, unitAmount: 45000, rates: ['txr_e'] },
        { description: 'Material didáctico', quantity: 2, unitAmount: 2500, rates: ['txr_es21'] },
      ],
      payment: { iban: 'ES9121000418450200051332' },
    }),
  },
  {
    name: 'invoice-ae-reverse-charge',
    model: buildModel({
      seller: fr,
      buyer: party('DE', 'Berlin Bau AG', {
        vatId: 'DE987654321',
        electronicAddress: { scheme: '9930', value: 'DE987654321' },
      }),
      taxExempt: 'reverse',
      rates: [
        { id: 'txr_ae', category: 'AE', percentage: '20', exemptionReason: 'Autoliquidation' },
      ],
      lines: [{ description: 'Travaux de construction', quantity: 1, unitAmount: 1250000 }],
      payment: { iban: 'FR1420041010050500013M02606' },
    }),
  },
  {
    name: 'invoice-k-intra-community',
    model: buildModel({
      seller: de,
      buyer: atBuyer,
      rates: [
        {
          id: 'txr_k',
          category: 'K',
          percentage: '0',
          exemptionReason: 'Steuerfreie innergemeinschaftliche Lieferung',
        },
      ],
      lines: [{ description: 'Industrial pump', quantity: 2, unitAmount: 480000, unitCode: 'H87' }],
      payment: iban,
    }),
  },
  {
    name: 'invoice-g-export',
    model: buildModel({
      seller: fr,
      buyer: us,
      currency: 'usd',
      rates: [
        {
          id: 'txr_g',
          category: 'G',
          percentage: '0',
          exemptionReason: 'Exonération de TVA, article 262 I du CGI',
        },
      ],
      lines: [{ description: 'Wine, case of 12', quantity: 5, unitAmount: 24000 }],
    }),
  },
  {
    name: 'invoice-o-outside-scope',
    model: buildModel({
      seller: { ...de, companyRegistration: 'HRB 12345' },
      buyer: ch,
      rates: [
        {
          id: 'txr_o',
          category: 'O',
          percentage: '0',
          exemptionReason: 'Not subject to VAT: place of supply outside the EU',
        },
      ],
      lines: [{ description: 'Membership fee 2027', quantity: 1, unitAmount: 50000 }],
      payment: iban,
    }),
  },
  {
    name: 'invoice-l-igic-and-m-ipsi',
    model: buildModel({
      seller: es,
      buyer: esBuyer,
      rates: [
        { id: 'txr_igic', category: 'L', percentage: '7' },
        { id: 'txr_ipsi', category: 'M', percentage: '4' },
      ],
      lines: [
        {
          description: 'Alojamiento (Canarias)',
          quantity: 3,
          unitAmount: 12000,
          rates: ['txr_igic'],
          unitCode: 'DAY',
        },
        { description: 'Transporte (Ceuta)', quantity: 1, unitAmount: 8999, rates: ['txr_ipsi'] },
      ],
    }),
  },
  {
    name: 'invoice-jpy-zero-decimals',
    model: buildModel({
      seller: fr,
      buyer: frBuyer,
      currency: 'jpy',
      rates: [s20],
      lines: [
        { description: 'Matcha 100 g', quantity: 3, unitAmount: 1833 },
        { description: 'Tea set', quantity: 1, unitAmount: 12999 },
      ],
    }),
  },
  {
    name: 'invoice-kwd-three-decimals-inclusive',
    model: buildModel({
      seller: fr,
      buyer: party('KW', 'Gulf Supplies WLL', {
        electronicAddress: { scheme: '0088', value: '4098765432101' },
      }),
      currency: 'kwd',
      rates: [
        { id: 'txr_gk', category: 'G', percentage: '0', exemptionReason: 'Export outside the EU' },
      ],
      pricesIncludeTax: true,
      lines: [
        { description: 'Spare parts', quantity: 2, unitAmount: 2475 },
        { description: 'Handling', quantity: 3, unitAmount: 1250 },
      ],
    }),
  },
  {
    name: 'credit-note-s',
    model: buildModel({
      kind: 'credit_note',
      seller: de,
      buyer: frBuyer,
      rates: [s19],
      lines: [
        {
          description: 'Credit: consulting hours not used',
          quantity: 1,
          unitAmount: 33333,
          unitCode: 'HUR',
        },
      ],
      paymentTerms: 'Credited against invoice INV-000001.',
      payment: iban,
    }),
  },
  {
    name: 'credit-note-inclusive-two-rates-period',
    model: buildModel({
      kind: 'credit_note',
      number: 'CN-000002',
      seller: at,
      buyer: atBuyer,
      pricesIncludeTax: true,
      rates: [
        { id: 'txr_at20', category: 'S', percentage: '20' },
        { id: 'txr_at10', category: 'S', percentage: '10' },
      ],
      lines: [
        {
          description: 'Retoure Kaffeemaschine',
          quantity: 1,
          unitAmount: 19999,
          rates: ['txr_at20'],
        },
        { description: 'Retoure Kaffeebohnen', quantity: 3, unitAmount: 1799, rates: ['txr_at10'] },
      ],
      supplyDate: null,
      servicePeriod: { start: '2026-10-01', end: '2026-10-31' },
      paymentTerms: 'Wird mit der nächsten Rechnung verrechnet.',
    }),
  },
  {
    name: 'credit-note-ae',
    model: buildModel({
      kind: 'credit_note',
      seller: fr,
      buyer: party('DE', 'Berlin Bau AG', {
        vatId: 'DE987654321',
        electronicAddress: { scheme: '9930', value: 'DE987654321' },
      }),
      taxExempt: 'reverse',
      rates: [
        { id: 'txr_ae', category: 'AE', percentage: '20', exemptionReason: 'Autoliquidation' },
      ],
      lines: [{ description: 'Avoir sur travaux', quantity: 1, unitAmount: 250000 }],
      paymentTerms: 'Remboursé par virement.',
    }),
  },
  {
    name: 'credit-note-g-jpy',
    model: buildModel({
      kind: 'credit_note',
      seller: fr,
      buyer: jp,
      currency: 'jpy',
      rates: [
        { id: 'txr_g', category: 'G', percentage: '0', exemptionReason: 'Export outside the EU' },
      ],
      lines: [{ description: 'Returned tea set', quantity: 2, unitAmount: 12999 }],
      paymentTerms: 'Refunded to the card used for payment.',
    }),
  },
  {
    name: 'peppol-nl-domestic',
    model: buildModel({
      seller: party('NL', 'Amsterdam Tech BV', {
        vatId: 'NL123456789B01',
        companyRegistration: '12345678',
        electronicAddress: { scheme: '0106', value: '12345678' },
      }),
      buyer: party('NL', 'Rotterdam Haven NV', {
        vatId: 'NL987654321B01',
        electronicAddress: { scheme: '9944', value: 'NL987654321B01' },
      }),
      rates: [{ id: 'txr_nl21', category: 'S', percentage: '21' }],
      lines: [{ description: 'Hosting', quantity: 12, unitAmount: 2500, unitCode: 'MON' }],
      payment: { iban: 'NL91ABNA0417164300', bic: 'ABNANL2A' },
    }),
  },
  {
    name: 'peppol-dk-domestic',
    model: buildModel({
      currency: 'dkk',
      seller: party('DK', 'København Design ApS', {
        vatId: 'DK12345678',
        companyRegistration: '12345678',
        electronicAddress: { scheme: '0184', value: 'DK12345678' },
      }),
      buyer: party('DK', 'Aarhus Møbler A/S', {
        vatId: 'DK87654321',
        electronicAddress: { scheme: '0184', value: 'DK87654321' },
      }),
      rates: [{ id: 'txr_dk25', category: 'S', percentage: '25' }],
      lines: [{ description: 'Stol', quantity: 4, unitAmount: 149500 }],
      payment: { iban: 'DK5000400440116243' },
    }),
  },
  {
    name: 'peppol-se-domestic',
    model: buildModel({
      currency: 'sek',
      seller: party('SE', 'Stockholm Verktyg AB', {
        vatId: 'SE556036079301',
        companyRegistration: '556036-0793',
        electronicAddress: { scheme: '0007', value: '5560360793' },
      }),
      buyer: party('SE', 'Göteborg Bygg AB', {
        vatId: 'SE556703748501',
        electronicAddress: { scheme: '0007', value: '5567037485' },
      }),
      rates: [
        { id: 'txr_se25', category: 'S', percentage: '25' },
        { id: 'txr_se12', category: 'S', percentage: '12' },
      ],
      lines: [
        { description: 'Borrmaskin', quantity: 2, unitAmount: 129900, rates: ['txr_se25'] },
        { description: 'Lunch', quantity: 10, unitAmount: 11500, rates: ['txr_se12'] },
      ],
      payment: { iban: 'SE4550000000058398257466' },
    }),
  },
  {
    name: 'peppol-no-seller',
    model: buildModel({
      currency: 'nok',
      seller: party('NO', 'Oslo Fisk AS', {
        vatId: 'NO923609016MVA',
        electronicAddress: { scheme: '0192', value: '923609016' },
      }),
      buyer: party('NO', 'Bergen Rederi AS', {
        electronicAddress: { scheme: '0192', value: '987654325' },
      }),
      rates: [{ id: 'txr_no25', category: 'S', percentage: '25' }],
      lines: [{ description: 'Laks, 1 kg', quantity: 20, unitAmount: 18900, unitCode: 'KGM' }],
    }),
  },
  {
    name: 'peppol-it-seller',
    model: buildModel({
      seller: party('IT', 'Milano Moda Srl', {
        vatId: 'IT01234567897',
        electronicAddress: { scheme: '0211', value: 'IT01234567897' },
      }),
      buyer: atBuyer,
      rates: [
        {
          id: 'txr_k',
          category: 'K',
          percentage: '0',
          exemptionReason: 'Non imponibile art. 41 DL 331/93',
        },
      ],
      lines: [{ description: 'Giacca', quantity: 3, unitAmount: 21000 }],
      payment: { iban: 'IT60X0542811101000000123456' },
    }),
  },
  {
    name: 'refused-de-domestic-without-phone',
    model: buildModel({
      seller: de,
      buyer: party('DE', 'Hamburg Logistik GmbH', {
        vatId: 'DE111222333',
        electronicAddress: { scheme: '9930', value: 'DE111222333' },
      }),
      rates: [s19],
      lines: [{ description: 'Lagerung', quantity: 1, unitAmount: 99000 }],
      payment: iban,
    }),
    refused: { ubl: { missing: ['seller.phone'], rules: ['DE-R-006'] } },
  },
  {
    name: 'refused-ubl-email-address-and-no-buyer-address-on-peppol',
    model: buildModel({
      seller: { ...fr, electronicAddress: { scheme: 'EM', value: 'factures@dupont.example' } },
      buyer: { ...frBuyer, electronicAddress: null },
      rates: [s20],
      lines: [{ description: 'Abonnement', quantity: 1, unitAmount: 2900 }],
    }),
    refused: {
      ubl: {
        missing: ['seller.electronicAddress', 'customer.electronicAddress'],
        rules: ['PEPPOL-EN16931-CL008', 'PEPPOL-EN16931-R010'],
      },
    },
  },
  {
    name: 'refused-reverse-charge-without-buyer-vat-id',
    model: buildModel({
      seller: fr,
      buyer: party('DE', 'Berlin Bau AG', {
        electronicAddress: { scheme: '0088', value: '4098765432101' },
      }),
      taxExempt: 'reverse',
      rates: [
        { id: 'txr_ae', category: 'AE', percentage: '20', exemptionReason: 'Autoliquidation' },
      ],
      lines: [{ description: 'Travaux', quantity: 1, unitAmount: 100000 }],
    }),
    refused: {
      ubl: { missing: ['customer.taxIds'], rules: ['BR-AE-02'] },
      cii: { missing: ['customer.taxIds'], rules: ['BR-AE-02'] },
    },
  },
  {
    name: 'refused-exempt-customer-on-standard-rate',
    model: buildModel({
      seller: fr,
      buyer: frBuyer,
      taxExempt: 'exempt',
      rates: [s20],
      lines: [{ description: 'Formation', quantity: 1, unitAmount: 80000 }],
    }),
    refused: {
      ubl: { missing: ['taxRates[txr_s20].category'], rules: ['BR-S-09', 'BR-CO-17'] },
      cii: { missing: ['taxRates[txr_s20].category'], rules: ['BR-S-09', 'BR-CO-17'] },
    },
  },
  {
    name: 'refused-outside-scope-mixed-with-standard',
    model: buildModel({
      seller: { ...de, companyRegistration: 'HRB 12345' },
      buyer: ch,
      rates: [
        { id: 'txr_o', category: 'O', percentage: '0', exemptionReason: 'Not subject to VAT' },
        s19,
      ],
      lines: [
        { description: 'Membership fee', quantity: 1, unitAmount: 50000, rates: ['txr_o'] },
        { description: 'Printed yearbook', quantity: 1, unitAmount: 2500, rates: ['txr_s19'] },
      ],
    }),
    refused: {
      ubl: { missing: ['taxRates[txr_s19].category'], rules: ['BR-O-11', 'BR-O-12', 'BR-S-02'] },
      cii: { missing: ['taxRates[txr_s19].category'], rules: ['BR-O-11', 'BR-O-12', 'BR-S-02'] },
    },
  },
];
