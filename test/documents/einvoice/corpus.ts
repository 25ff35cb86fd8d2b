// The e-invoice corpus: documents that cover every VAT category, both kinds, one and many
// rates, inclusive and exclusive prices, discounts, JPY and KWD, with and without payment
// details, supply date and service period (here), and the national Peppol rules and documents
// refused on purpose (corpus-peppol.ts). `npm run conformance` validates each against the
// official schemas and rules; the unit tests use the same models. Entries marked `refused` are
// incomplete for a syntax on purpose: completeness must name the fields, and the document
// written anyway must fail the rules it names.
import type { EinvoiceSyntax } from '../../../src/documents/einvoice/codes.ts';
import type { DocumentModel } from '../../../src/documents/model.ts';
import { buildModel, party, type LineSpec } from './build-model.ts';
import { peppolCorpus } from './corpus-peppol.ts';
import {
  de,
  fr,
  frBuyer,
  at,
  atBuyer,
  be,
  es,
  esBuyer,
  us,
  ch,
  jp,
  iban,
  s19,
  s20,
} from './parties.ts';

export interface CorpusEntry {
  name: string;
  model: DocumentModel;
  /** Syntaxes this model cannot be written in: the fields reported and the rules that fire. */
  refused?: Partial<Record<EinvoiceSyntax, { missing: string[]; rules: string[] }>>;
}

const entries: CorpusEntry[] = [
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
  ...subscriptionEntries(),
];

/**
 * Lines a subscription makes: a period on each (BG-26), and amounts that follow a price's
 * scheme rather than quantity × unit price: tiers, a decimal unit amount, a proration credit
 * and its charge (their price is quoted for the whole quantity where it does not divide).
 */
function subscriptionEntries(): CorpusEntry[] {
  const january = { start: '2027-01-01', end: '2027-01-31' };
  const rest = { start: '2027-01-15', end: '2027-01-31' };
  const lines = [
    { description: 'Pro plan', quantity: 3, unitAmount: 2900, period: january },
    {
      description: 'API calls (graduated tiers)',
      quantity: 12345,
      unitAmount: null,
      amount: 9876,
      period: { start: '2026-12-01', end: '2026-12-31' },
    },
    {
      description: 'Storage, GB-hours at 0.025 cents',
      quantity: 1_000_001,
      unitAmount: null,
      amount: 25000,
      unitCode: 'HUR',
      period: { start: '2026-12-01', end: '2026-12-31' },
    },
    {
      description: 'Unused time on Pro plan',
      quantity: 3,
      unitAmount: null,
      amount: -4210,
      period: rest,
    },
    {
      description: 'Remaining time on Business plan',
      quantity: 3,
      unitAmount: null,
      amount: 7777,
      period: rest,
    },
  ];
  const base = { seller: de, buyer: frBuyer, rates: [s19], payment: iban, issueDate: '2027-01-01' };
  return [
    {
      name: 'invoice-subscription-line-periods',
      model: buildModel({ ...base, lines, supplyDate: '2027-01-01' }),
    },
    {
      name: 'invoice-subscription-line-periods-in-service-period',
      model: buildModel({
        ...base,
        lines,
        supplyDate: null,
        servicePeriod: { start: '2026-12-01', end: '2027-01-31' },
      }),
    },
    {
      name: 'credit-note-line-period',
      model: buildModel({
        ...base,
        kind: 'credit_note',
        lines: [{ ...lines[3]!, amount: 4210 }],
        paymentTerms: 'Set off against INV-000001.',
        creditedInvoice: { id: 'inv_test', number: 'INV-000001', issueDate: '2027-01-01' },
      }),
    },
    {
      name: 'invoice-metered-decimal-quantities-and-flat-fee',
      model: buildModel({
        ...base,
        lines: meteredLines(),
        supplyDate: null,
        servicePeriod: { start: '2026-12-01', end: '2026-12-31' },
      }),
    },
    {
      name: 'invoice-metered-inclusive',
      model: buildModel({
        ...base,
        pricesIncludeTax: true,
        lines: meteredLines(),
        supplyDate: null,
        servicePeriod: { start: '2026-12-01', end: '2026-12-31' },
      }),
    },
    {
      name: 'refused-line-period-outside-service-period',
      model: buildModel({
        ...base,
        lines,
        supplyDate: null,
        servicePeriod: { start: '2027-01-01', end: '2027-01-20' },
      }),
      refused: {
        ubl: { missing: ['servicePeriod'], rules: ['PEPPOL-EN16931-R110', 'PEPPOL-EN16931-R111'] },
      },
    },
  ];
}

/**
 * Lines of metered prices, billed in arrears: decimal quantities (a unit price that divides,
 * one that does not, twelve decimal places), and a tier's flat fee at zero usage, written as
 * a line charge at quantity 0.
 */
function meteredLines(): LineSpec[] {
  const december = { start: '2026-12-01', end: '2026-12-31' };
  return [
    { description: 'Charging', quantity: '12.5', unitAmount: 10, amount: 125, unitCode: 'KWH' },
    { description: 'Storage, GB-months', quantity: '0.000125', unitAmount: null, amount: 1 },
    {
      description: 'Transfer, GB',
      quantity: '1234.000000000001',
      unitAmount: null,
      amount: 98765,
      unitCode: 'E34',
    },
    { description: 'Support (base fee)', quantity: 0, unitAmount: null, amount: 500 },
  ].map((line) => ({ ...line, period: december }));
}

export const corpus: CorpusEntry[] = [...entries, ...peppolCorpus];
