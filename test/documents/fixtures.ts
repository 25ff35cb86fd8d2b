// Worked examples of documents, shared by the tests, `npm run documents:examples` and the
// benchmark: each one exercises a language, a currency or a rule of the document's layout.
import type { DocumentModel } from '../../src/documents/model.ts';
import {
  buildModel,
  party,
  type LineInput,
  type ModelBase,
  type RateInput,
} from './model-builder.ts';

export const MULLER = party({
  name: 'Müller GmbH',
  address: {
    line1: 'Leopoldstraße 12',
    line2: null,
    city: 'München',
    state: null,
    postalCode: '80802',
    country: 'DE',
  },
  vatId: 'DE123456789',
  companyRegistration: 'HRB 123456, Amtsgericht München',
  email: 'rechnung@mueller-gmbh.example',
  electronicAddress: { scheme: '9930', value: 'DE123456789' },
});

const PAYMENT = {
  iban: 'DE89370400440532013000',
  bic: 'COBADEFFXXX',
  accountName: null,
  instructions: null,
};

function base(fields: Partial<ModelBase>): ModelBase {
  return {
    kind: 'invoice',
    draft: false,
    id: 'inv_0001',
    number: 'INV-000001',
    issueDate: '2026-11-24',
    issuedAt: '2026-11-24T10:15:00Z',
    dueDate: '2026-12-08',
    supplyDate: '2026-11-24',
    servicePeriod: null,
    currency: 'eur',
    locale: 'en',
    seller: MULLER,
    buyer: party({ name: 'Example Buyer Ltd' }),
    buyerReference: null,
    purchaseOrder: null,
    paymentTerms: null,
    payment: PAYMENT,
    pricesIncludeTax: false,
    note: null,
    creditedInvoice: null,
    creditReason: null,
    ...fields,
  };
}

const REVERSE_CHARGE: RateInput = {
  id: 'txr_rc',
  displayName: 'Reverse charge',
  percentage: '19',
  category: 'AE',
  exemptionReason:
    'Steuerschuldnerschaft des Leistungsempfängers gemäß Art. 196 MwStSystRL / § 13b UStG',
};

export const germanReverseCharge: DocumentModel = buildModel(
  base({
    locale: 'de',
    id: 'inv_de_rc',
    number: 'RE-2026-0042',
    supplyDate: null,
    servicePeriod: { start: '2026-11-01', end: '2026-11-30' },
    buyer: party({
      name: 'Gruber & Söhne Handels GmbH',
      address: {
        line1: 'Mariahilfer Straße 101',
        line2: '3. Stock',
        city: 'Wien',
        state: null,
        postalCode: '1060',
        country: 'AT',
      },
      vatId: 'ATU12345678',
    }),
    buyerReference: 'Projekt Alpenblick',
    purchaseOrder: 'PO-7781',
    paymentTerms: 'Zahlbar innerhalb von 14 Tagen bis zum 08.12.2026 ohne Abzug.',
    payment: { ...PAYMENT, instructions: 'Bitte geben Sie die Rechnungsnummer an.' },
    note: 'Vielen Dank für Ihren Auftrag!',
  }),
  [
    {
      description: 'Beratung Datenmigration (Senior)',
      quantity: 24,
      unitAmount: 14500,
      unitCode: 'HUR',
      rate: 'txr_rc',
    },
    {
      description: 'Lizenz „Müller Cloud“ – Monatsabonnement für 25 Arbeitsplätze',
      quantity: 1,
      unitAmount: 123456,
      unitCode: 'MON',
      rate: 'txr_rc',
    },
  ],
  [REVERSE_CHARGE],
);

export const polishInvoice: DocumentModel = buildModel(
  base({
    locale: 'pl',
    id: 'inv_pl',
    number: 'FV/2026/11/0007',
    currency: 'pln',
    pricesIncludeTax: true,
    seller: party({
      name: 'Zakład Łódź Sp. z o.o.',
      address: {
        line1: 'ul. Piotrkowska 120',
        line2: null,
        city: 'Łódź',
        state: null,
        postalCode: '90-006',
        country: 'PL',
      },
      vatId: 'PL7251234567',
      companyRegistration: 'KRS 0000123456, Sąd Rejonowy dla Łodzi-Śródmieścia',
      email: 'faktury@zaklad-lodz.example',
    }),
    buyer: party({
      name: 'Przedsiębiorstwo Handlowe „Źródło” Żaneta Ćwiklińska',
      address: {
        line1: 'ul. Świętokrzyska 14/3',
        line2: null,
        city: 'Kraków',
        state: null,
        postalCode: '31-000',
        country: 'PL',
      },
      vatId: 'PL6761234567',
    }),
    paymentTerms: 'Płatne przelewem w ciągu 14 dni.',
    payment: {
      iban: 'PL61109010140000071219812874',
      bic: 'WBKPPLPP',
      accountName: null,
      instructions: null,
    },
  }),
  [
    {
      description: 'Usługa księgowa – ŁłŚśĄąĘęŻżŹźĆćŃńÓó',
      quantity: 1,
      unitAmount: 123000,
      rate: 'txr_pl23',
    },
    {
      description: 'Tłumaczenie: Dvořák, Žižkov, Říčany (čeština)',
      quantity: 3,
      unitAmount: 24600,
      unitCode: 'HUR',
      rate: 'txr_pl23',
    },
    {
      description: 'Szolgáltatás: Győr, Ősi, Űrhajó (magyar)',
      quantity: 2,
      unitAmount: 10800,
      rate: 'txr_pl8',
    },
  ],
  [
    { id: 'txr_pl23', displayName: 'VAT 23%', percentage: '23', category: 'S' },
    { id: 'txr_pl8', displayName: 'VAT 8%', percentage: '8', category: 'S' },
  ],
);

export const greekCyrillicBuyer: DocumentModel = buildModel(
  base({
    id: 'inv_el_ru',
    number: 'INV-000317',
    buyer: party({
      name: 'Αθήνα Εμπορική Α.Ε.',
      address: {
        line1: 'Λεωφόρος Βασιλίσσης Σοφίας 10',
        line2: null,
        city: 'Αθήνα',
        state: null,
        postalCode: '106 74',
        country: 'GR',
      },
      vatId: 'EL123456789',
    }),
    buyerReference: 'Московский филиал',
    note: 'Delivery to the branch office: ООО «Ромашка», ул. Тверская 7, Москва. Japanese subsidiary: 株式会社テスト 👍🏽',
  }),
  [
    {
      description: 'Консультации по внедрению — Москва',
      quantity: 5,
      unitAmount: 20000,
      unitCode: 'DAY',
      rate: 'txr_k',
    },
    {
      description: 'Εκπαίδευση προσωπικού (Θεσσαλονίκη)',
      quantity: 2,
      unitAmount: 45000,
      unitCode: 'DAY',
      rate: 'txr_k',
    },
    {
      description: 'Translation into Japanese 株式会社テスト and Arabic مرحبا 👍🏽',
      quantity: 1,
      unitAmount: 9900,
      rate: 'txr_k',
    },
  ],
  [
    {
      id: 'txr_k',
      displayName: 'Intra-Community supply',
      percentage: '0',
      category: 'K',
      exemptionReason:
        'Intra-Community supply of services, Article 138 Council Directive 2006/112/EC',
    },
  ],
);

const PRODUCTS = [
  'Annual maintenance of the cooling system, building B, including replacement of filters and a written inspection report',
  'USB-C cable, 2 m',
  'Office chair “Ergo Pro”, black',
  'On-site support (evening hours)',
  'Printer toner, cyan',
];

/** An English invoice with `count` numbered lines at 19 % and 7 %, one in five of them long. */
export function invoiceWithLines(count: number): DocumentModel {
  const number = `INV-${String(count).padStart(6, '0')}`;
  return buildModel(
    base({ id: `inv_${count}_lines`, number, paymentTerms: 'Payable within 30 days.' }),
    Array.from({ length: count }, (_, i): LineInput => ({
      description: `${i + 1}. ${PRODUCTS[i % PRODUCTS.length]}`,
      quantity: (i % 7) + 1,
      unitAmount: 1999 + ((i * 7919) % 50000),
      rate: i % 3 === 0 ? 'txr_7' : 'txr_19',
    })),
    [
      { id: 'txr_19', displayName: 'VAT 19%', percentage: '19', category: 'S' },
      { id: 'txr_7', displayName: 'VAT 7%', percentage: '7', category: 'S' },
    ],
  );
}

export const longInvoice: DocumentModel = invoiceWithLines(250);

export const creditNote: DocumentModel = buildModel(
  base({
    kind: 'credit_note',
    locale: 'fr',
    id: 'cn_0001',
    number: 'AV-000003',
    dueDate: null,
    buyer: party({
      name: 'Boulangerie Dupré SARL',
      address: {
        line1: '8 rue de l’Église',
        line2: null,
        city: 'Lyon',
        state: null,
        postalCode: '69002',
        country: 'FR',
      },
      vatId: 'FR40123456789',
    }),
    creditedInvoice: { id: 'inv_fr', number: 'INV-000211', issueDate: '2026-10-30' },
    creditReason: 'order_change',
    note: 'Avoir à déduire de votre prochain règlement.',
  }),
  [
    {
      description: 'Four à sole – annulation d’une option',
      quantity: 1,
      unitAmount: 45000,
      rate: 'txr_fr20',
    },
  ],
  [{ id: 'txr_fr20', displayName: 'TVA 20 %', percentage: '20', category: 'S' }],
);

export const draftInvoice: DocumentModel = buildModel(
  base({
    locale: 'nl',
    id: 'inv_draft',
    number: null,
    draft: true,
    buyer: party({ name: 'Bakkerij de Vries B.V.' }),
  }),
  [
    {
      description: 'Onderhoudscontract kassasysteem',
      quantity: 12,
      unitAmount: 3950,
      unitCode: 'MON',
      rate: 'txr_nl21',
    },
  ],
  [{ id: 'txr_nl21', displayName: 'Btw 21%', percentage: '21', category: 'S' }],
);

export const yenInvoice: DocumentModel = buildModel(
  base({
    id: 'inv_jpy',
    number: 'INV-000118',
    currency: 'jpy',
    buyer: party({
      name: 'Sakura Trading K.K.',
      address: {
        line1: '1-2-3 Marunouchi',
        line2: 'Chiyoda-ku',
        city: 'Tokyo',
        state: null,
        postalCode: '100-0005',
        country: 'JP',
      },
    }),
  }),
  [
    {
      description: 'Implementation workshop',
      quantity: 3,
      unitAmount: 180000,
      unitCode: 'DAY',
      rate: 'txr_jp10',
    },
  ],
  [{ id: 'txr_jp10', displayName: 'Consumption tax 10%', percentage: '10', category: 'S' }],
);

export const dinarInvoice: DocumentModel = buildModel(
  base({
    id: 'inv_kwd',
    number: 'INV-000119',
    currency: 'kwd',
    buyer: party({
      name: 'Gulf Logistics W.L.L.',
      address: {
        line1: 'Al Hamra Tower, floor 40',
        line2: null,
        city: 'Kuwait City',
        state: null,
        postalCode: null,
        country: 'KW',
      },
    }),
  }),
  [
    { description: 'Route planning licence', quantity: 1, unitAmount: 1250125, rate: 'txr_o' },
    { description: 'Fuel surcharge', quantity: 3, unitAmount: 4125, rate: 'txr_o' },
  ],
  [
    {
      id: 'txr_o',
      displayName: 'Outside the scope of VAT',
      percentage: '0',
      category: 'O',
      exemptionReason: 'Services supplied outside the EU: not subject to EU VAT',
    },
  ],
  500000,
);

/**
 * A subscription's invoice: each line with the period it bills printed under it, a tiered line
 * and a proration credit and charge, whose amounts are not quantity × a unit price.
 */
export const subscriptionInvoice: DocumentModel = buildModel(
  base({
    id: 'inv_sub',
    locale: 'de',
    number: 'RE-2027-0001',
    issueDate: '2027-01-01',
    issuedAt: '2027-01-01T09:00:00.000Z',
    dueDate: '2027-01-15',
    supplyDate: null,
    servicePeriod: { start: '2026-12-01', end: '2027-01-31' },
    buyer: party({
      name: 'Gruber & Söhne Handels GmbH',
      address: {
        line1: 'Mariahilfer Straße 101',
        line2: null,
        city: 'Wien',
        state: null,
        postalCode: '1060',
        country: 'AT',
      },
      vatId: 'ATU12345678',
    }),
    buyerReference: null,
    paymentTerms: 'Zahlbar bis zum 15.01.2027.',
  }),
  [
    {
      description: 'Müller Cloud Business, 25 Arbeitsplätze',
      quantity: 25,
      unitAmount: 2900,
      rate: 'txr_rc',
      period: { start: '2027-01-01', end: '2027-01-31' },
    },
    {
      description: 'API-Aufrufe (gestaffelt)',
      quantity: 1_234_567,
      unitAmount: null,
      amount: 98_765,
      rate: 'txr_rc',
      period: { start: '2026-12-01', end: '2026-12-31' },
    },
    {
      description: 'Nicht genutzte Zeit für Müller Cloud Team',
      quantity: 25,
      unitAmount: null,
      amount: -31_452,
      rate: 'txr_rc',
      period: { start: '2026-12-17', end: '2026-12-31' },
    },
    {
      description: 'Restzeit für Müller Cloud Business',
      quantity: 25,
      unitAmount: null,
      amount: 33_669,
      rate: 'txr_rc',
      period: { start: '2026-12-17', end: '2026-12-31' },
    },
  ],
  [REVERSE_CHARGE],
);

export const WORKED_EXAMPLES: Record<string, DocumentModel> = {
  'de-reverse-charge': germanReverseCharge,
  'pl-invoice': polishInvoice,
  'en-greek-cyrillic-buyer': greekCyrillicBuyer,
  'en-250-lines': longInvoice,
  'fr-credit-note': creditNote,
  'nl-draft': draftInvoice,
  'en-jpy': yenInvoice,
  'en-kwd': dinarInvoice,
  'de-subscription': subscriptionInvoice,
  // The remaining languages' labels on documents whose data are above.
  'es-credit-note': { ...creditNote, locale: 'es', id: 'cn_es', number: 'R-2026-0003' },
  'it-intra-community': {
    ...greekCyrillicBuyer,
    locale: 'it',
    id: 'inv_it',
    number: 'FT-2026/118',
  },
};

/** A stand-in for the CII XML of a document (the e-invoice generator writes the real one). */
export function sampleCii(model: DocumentModel): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">
  <rsm:ExchangedDocument><ram:ID xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">${model.number}</ram:ID></rsm:ExchangedDocument>
</rsm:CrossIndustryInvoice>
`;
}
