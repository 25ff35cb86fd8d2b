// The corpus's Peppol cases: national rules that pass (NL, DK, SE, NO, IT sellers) and
// documents that are incomplete on purpose, for one syntax or both.
import { buildModel, party } from './build-model.ts';
import type { CorpusEntry } from './corpus.ts';
import { de, fr, frBuyer, atBuyer, ch, iban, s19, s20 } from './parties.ts';

export const peppolCorpus: CorpusEntry[] = [
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
    // XRechnung's national rules: IBAN, a contact with telephone and e-mail.
    name: 'de-domestic-with-contact',
    model: buildModel({
      seller: { ...de, phone: '+49 30 1234567' },
      buyer: party('DE', 'Hamburg Logistik GmbH', {
        vatId: 'DE111222333',
        electronicAddress: { scheme: '9930', value: 'DE111222333' },
      }),
      rates: [s19],
      lines: [{ description: 'Lagerung', quantity: 1, unitAmount: 99000 }],
      payment: iban,
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
        missing: ['customer.electronicAddress', 'seller.electronicAddress'],
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
