// An Austrian seller without payment details (payment terms from its settings): 20 % and 10 %
// with a discount on the reduced rate, and a credit note of its lines.
import { address, ApiSeller, type ApiDocument } from '../api-documents.ts';
import type { ConformanceServer } from '../api-server.ts';

export async function austrianSeller(server: ConformanceServer): Promise<ApiDocument[]> {
  const at = new ApiSeller(await server.seller('Alpen Handel'), 'at');
  // No payment details (EN 16931 makes them optional outside Germany and the Netherlands);
  // payment terms from the settings.
  await at.settings({
    legalName: 'Alpen Handel GmbH',
    address: { ...address('Maria-Theresien-Straße 3', '6020', 'Innsbruck', 'AT'), state: 'Tirol' },
    taxId: 'ATU12345678',
    companyRegistration: 'FN 123456a, Landesgericht Innsbruck',
    email: 'buchhaltung@alpen-handel.example',
    paymentTerms: 'Zahlbar innerhalb von 30 Tagen ohne Abzug.',
    locale: 'de',
  });
  const s20 = await at.rate({ displayName: 'USt.', percentage: 20, inclusive: false });
  const s10 = await at.rate({ displayName: 'USt. ermäßigt', percentage: 10, inclusive: false });
  const graz = await at.customer({
    name: 'Grazer Gastro OG',
    email: 'office@grazer-gastro.example',
    address: { ...address('Herrengasse 16', '8010', 'Graz', 'AT'), line2: '2. Stock' },
    taxIds: [{ type: 'eu_vat', value: 'ATU87654321' }],
    locale: 'de-AT',
  });
  const invoice = await at.invoice({
    customerId: graz,
    currency: 'eur',
    dueDate: '2027-03-31',
    defaultTaxRates: [s20],
    lines: [
      { description: 'Kaffeemaschine', quantity: 2, unitAmount: 89900, unitCode: 'H87' },
      {
        description: 'Kaffeebohnen',
        quantity: 30,
        unitAmount: 1899,
        unitCode: 'KGM',
        taxRates: [s10],
      },
      { description: 'Mengenrabatt Bohnen', quantity: 1, unitAmount: -2847, taxRates: [s10] },
    ],
    supplyDate: '2026-11-20',
  });
  await at.read('s20-s10-no-payment-details', 'invoice', invoice.id);
  const credit = await at.creditNote({
    invoiceId: invoice.id,
    reason: 'product_unsatisfactory',
    lines: [
      { description: 'Kaffeemaschine defekt', amount: 107880, invoiceLineId: invoice.lines[0]!.id },
      { description: 'Bohnen retour', amount: 4178, invoiceLineId: invoice.lines[1]!.id },
    ],
  });
  await at.read('credit-note-lines-no-payment-details', 'credit_note', credit);
  return at.documents;
}
