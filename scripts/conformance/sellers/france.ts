// A French seller with prices including VAT: reverse charge to a British customer (its
// electronic address derived from its gb_vat id), and a domestic invoice at 20 % and 5.5 % with
// a discount and a line of quantity 0, with a credit note of an amount.
import { address, ApiSeller, type ApiDocument } from '../api-documents.ts';
import type { ConformanceServer } from '../api-server.ts';

export async function frenchSeller(server: ConformanceServer): Promise<ApiDocument[]> {
  const fr = new ApiSeller(await server.seller('Dupont'), 'fr');
  await fr.settings({
    legalName: 'Dupont SARL',
    address: address('10 Rue de Rivoli', '75004', 'Paris', 'FR'),
    taxId: 'FR40303265045',
    companyRegistration: 'RCS Paris 303 265 045',
    email: 'compta@dupont.example',
    paymentDetails: { iban: 'FR1420041010050500013M02606', bic: 'PSSTFRPPXXX' },
    locale: 'fr',
  });
  const s20 = await fr.rate({ displayName: 'TVA', percentage: 20, inclusive: true });
  const s55 = await fr.rate({ displayName: 'TVA réduite', percentage: 5.5, inclusive: true });
  // A British buyer: its VAT id is a gb_vat tax id.
  const london = await fr.customer({
    name: 'London Wine Merchants Ltd',
    email: 'payables@lwm.example',
    address: address('1 Poultry', 'EC2R 8EJ', 'London', 'GB'),
    taxIds: [{ type: 'gb_vat', value: 'GB123456789' }],
    taxExempt: 'reverse',
    locale: 'en',
  });
  const gb = await fr.invoice({
    customerId: london,
    currency: 'eur',
    defaultTaxRates: [s20],
    lines: [
      { description: 'Conseil en œnologie', quantity: 6, unitAmount: 25000, unitCode: 'HUR' },
    ],
  });
  await fr.read('ae-reverse-charge-gb', 'invoice', gb.id);
  const lille = await fr.customer({
    name: 'Client Martin SA',
    email: 'fournisseurs@martin.example',
    address: address('2 Grand Place', '59000', 'Lille', 'FR'),
    taxIds: [{ type: 'eu_vat', value: 'FR82542065479' }],
    electronicAddress: { scheme: '0009', value: '54206547900017' },
  });
  const domestic = await fr.invoice({
    customerId: lille,
    currency: 'eur',
    defaultTaxRates: [s20],
    lines: [
      { description: 'Licence annuelle', quantity: 10, unitAmount: 4900 },
      { description: 'Remise fidélité', quantity: 1, unitAmount: -4900 },
      { description: 'Rien ce mois-ci', quantity: 0, unitAmount: 1500 },
      { description: 'Livres techniques', quantity: 3, unitAmount: 2999, taxRates: [s55] },
    ],
    purchaseOrder: 'PO-2026-117',
  });
  await fr.read('s20-s55-inclusive-zero-quantity', 'invoice', domestic.id);
  const domesticCredit = await fr.creditNote({ invoiceId: domestic.id, amount: 9999 });
  await fr.read('credit-note-amount-inclusive-s20-s55', 'credit_note', domesticCredit);
  return fr.documents;
}
