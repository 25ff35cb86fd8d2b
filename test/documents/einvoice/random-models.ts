// Random documents for property tests and for a seeded sample in the conformance run: any mix
// of the VAT categories that may share a document, inclusive or exclusive prices, discounts,
// empty lines, invoices and credit notes, in EUR, JPY and KWD.
import fc from 'fast-check';
import type { DocumentModel } from '../../../src/documents/model.ts';
import { buildModel, party, type RateSpec } from './build-model.ts';

const rates: RateSpec[] = [
  { id: 'txr_s19', category: 'S', percentage: '19' },
  { id: 'txr_s7', category: 'S', percentage: '7' },
  { id: 'txr_s8875', category: 'S', percentage: '8.875' },
  { id: 'txr_z', category: 'Z', percentage: '0' },
  { id: 'txr_e', category: 'E', percentage: '0', exemptionReason: 'Exempt under article 132' },
  { id: 'txr_ae', category: 'AE', percentage: '0', exemptionReason: 'Reverse charge' },
  { id: 'txr_g', category: 'G', percentage: '0', exemptionReason: 'Export' },
  { id: 'txr_l', category: 'L', percentage: '7' },
  { id: 'txr_m', category: 'M', percentage: '4' },
];
const seller = party('FR', 'Dupont SARL', {
  vatId: 'FR40303265045',
  electronicAddress: { scheme: '9957', value: 'FR40303265045' },
});
const buyer = party('BE', 'Gent Retail BV', {
  vatId: 'BE0123456749',
  electronicAddress: { scheme: '9925', value: 'BE0123456749' },
});

export const randomModels: fc.Arbitrary<DocumentModel> = fc
  .record({
    kind: fc.constantFrom('invoice' as const, 'credit_note' as const),
    currency: fc.constantFrom('eur', 'jpy', 'kwd'),
    pricesIncludeTax: fc.boolean(),
    prepaid: fc.constantFrom(0, 1000),
    lines: fc.array(
      fc.record({
        quantity: fc.integer({ min: 0, max: 40 }),
        unitAmount: fc.integer({ min: -50_000, max: 500_000 }),
        rate: fc.integer({ min: 0, max: rates.length - 1 }),
      }),
      { minLength: 1, maxLength: 8 },
    ),
  })
  .map((spec) =>
    buildModel({
      ...spec,
      seller,
      buyer,
      rates,
      paymentTerms: 'Payable on receipt.',
      lines: spec.lines.map((l, i) => ({
        description: `Item ${i + 1}`,
        quantity: l.quantity,
        unitAmount: l.unitAmount,
        rates: [rates[l.rate]!.id],
      })),
    }),
  );
