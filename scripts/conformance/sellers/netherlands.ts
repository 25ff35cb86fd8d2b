// A Dutch seller (its electronic address given: its KvK number): a domestic invoice with prices
// including VAT at 21 %, 9 % and 0 % (Z) and a credit note of its lines, and an invoice to a
// Belgian customer with a credit note of an amount.
import { address, ApiSeller, type ApiDocument } from '../api-documents.ts';
import type { ConformanceServer } from '../api-server.ts';

export async function dutchSeller(server: ConformanceServer): Promise<ApiDocument[]> {
  const nl = new ApiSeller(await server.seller('Tulip Software'), 'nl');
  // The electronic address given: its Chamber of Commerce (KvK) number.
  await nl.settings({
    legalName: 'Tulip Software B.V.',
    address: address('Keizersgracht 1', '1015 CS', 'Amsterdam', 'NL'),
    taxId: 'NL123456789B01',
    companyRegistration: '12345678',
    email: 'facturen@tulip.example',
    paymentDetails: { iban: 'NL91ABNA0417164300', bic: 'ABNANL2A' },
    electronicAddress: { scheme: '0106', value: '12345678' },
    locale: 'nl',
  });
  const s21 = await nl.rate({ displayName: 'btw', percentage: 21, inclusive: true });
  const s9 = await nl.rate({ displayName: 'btw laag', percentage: 9, inclusive: true });
  const z = await nl.rate({ displayName: 'btw 0%', percentage: 0, inclusive: true, category: 'Z' });

  // Domestic, prices including VAT: 21 %, 9 % and zero-rated, a discount, a service period.
  const utrecht = await nl.customer({
    name: 'Utrechtse Uitgeverij B.V.',
    email: 'crediteuren@uu-uitgeverij.example',
    address: address('Oudegracht 100', '3511 AX', 'Utrecht', 'NL'),
    taxIds: [{ type: 'eu_vat', value: 'NL987654321B02' }],
    buyerReference: 'UU-INKOOP-7',
  });
  const inclusive = await nl.invoice({
    customerId: utrecht,
    currency: 'eur',
    defaultTaxRates: [s21],
    lines: [
      { description: 'Softwarelicentie', quantity: 3, unitAmount: 33333, unitCode: 'MON' },
      { description: 'Handboek', quantity: 7, unitAmount: 1799, taxRates: [s9] },
      { description: 'Korting', quantity: 1, unitAmount: -2500 },
      { description: 'Zending naar Curaçao', quantity: 1, unitAmount: 1500, taxRates: [z] },
    ],
    servicePeriod: { start: '2026-11-01', end: '2027-01-31' },
  });
  await nl.read('inclusive-s21-s9-z-discount', 'invoice', inclusive.id);
  const lines = await nl.creditNote({
    invoiceId: inclusive.id,
    reason: 'order_change',
    lines: [
      { description: 'Licentie, één maand', amount: 33333, invoiceLineId: inclusive.lines[0]!.id },
      { description: 'Handboek retour', amount: 3598, invoiceLineId: inclusive.lines[1]!.id },
      { description: 'Coulance', amount: 1000 },
    ],
  });
  await nl.read('credit-note-lines-inclusive', 'credit_note', lines);

  // Cross-border to Belgium, exclusive prices, the buyer's address derived from its VAT id.
  const s21x = await nl.rate({ displayName: 'btw', percentage: 21, inclusive: false });
  const brussels = await nl.customer({
    name: 'Brussels Trading NV',
    email: 'ap@brussels-trading.example',
    address: address('Rue Royale 1', '1000', 'Bruxelles', 'BE'),
    taxIds: [{ type: 'eu_vat', value: 'BE0123456749' }],
    locale: 'fr',
  });
  const belgian = await nl.invoice({
    customerId: brussels,
    currency: 'eur',
    defaultTaxRates: [s21x],
    lines: [
      { description: 'Hosting', quantity: 12, unitAmount: 4999, unitCode: 'MON' },
      { description: 'Support', quantity: 5, unitAmount: 8500, unitCode: 'HUR' },
    ],
    purchaseOrder: 'BT-2026-0042',
    supplyDate: '2026-11-15',
  });
  await nl.read('s21-exclusive-be', 'invoice', belgian.id);
  const amount = await nl.creditNote({ invoiceId: belgian.id, amount: 12100, reason: 'duplicate' });
  await nl.read('credit-note-amount-be', 'credit_note', amount);
  return nl.documents;
}
