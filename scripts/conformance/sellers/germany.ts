// A German seller (its electronic address derived from its VAT id): a domestic invoice with
// two rates and credit notes of lines and of an amount, an intra-community supply to Austria,
// reverse charge to a French customer, exports in USD, JPY and KWD, a supply outside the scope
// of VAT, a total of 0, and the documents the API must refuse.
import { address, ApiSeller, type ApiDocument } from '../api-documents.ts';
import type { ConformanceServer } from '../api-server.ts';

export async function germanSeller(server: ConformanceServer): Promise<ApiDocument[]> {
  const de = new ApiSeller(await server.seller('Muster Maschinenbau'), 'de');
  // No electronic address given: derived from the VAT id (9930).
  await de.settings({
    legalName: 'Muster Maschinenbau GmbH',
    address: address('Leopoldstraße 1', '80802', 'München', 'DE'),
    taxId: 'DE123456789',
    companyRegistration: 'HRB 12345, Amtsgericht München',
    email: 'rechnung@muster.example',
    phone: '+49 89 1234567',
    paymentDetails: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
    locale: 'de',
  });
  const s19 = await de.rate({ displayName: 'USt.', percentage: 19, inclusive: false });
  const s7 = await de.rate({ displayName: 'USt. ermäßigt', percentage: 7, inclusive: false });

  // Domestic: two standard rates, a discount, units, Leitweg-ID, purchase order, supply date.
  const berlin = await de.customer({
    name: 'Berliner Bau AG',
    email: 'kreditoren@berliner-bau.example',
    address: address('Unter den Linden 5', '10117', 'Berlin', 'DE'),
    taxIds: [{ type: 'eu_vat', value: 'DE987654321' }],
  });
  const domestic = await de.invoice({
    customerId: berlin,
    currency: 'eur',
    defaultTaxRates: [s19],
    lines: [
      { description: 'Beratung', quantity: 12, unitAmount: 9500, unitCode: 'HUR' },
      { description: 'Fachbuch Maschinenbau', quantity: 3, unitAmount: 2990, taxRates: [s7] },
      { description: 'Schmierstoff', quantity: 25, unitAmount: 480, unitCode: 'LTR' },
      { description: 'Treuerabatt', quantity: 1, unitAmount: -5000 },
    ],
    buyerReference: '04011000-12345-67',
    purchaseOrder: 'PO-4711',
    supplyDate: '2026-11-02',
  });
  await de.read('domestic-s19-s7-discount', 'invoice', domestic.id);
  const byLines = await de.creditNote({
    invoiceId: domestic.id,
    reason: 'product_unsatisfactory',
    lines: [
      { description: 'Beratung, 2 Stunden', amount: 22610, invoiceLineId: domestic.lines[0]!.id },
      { description: 'Fachbuch zurück', amount: 3199, invoiceLineId: domestic.lines[1]!.id },
      // No invoice line named: split over the invoice's rates like an amount.
      { description: 'Kulanz', amount: 5000 },
    ],
  });
  await de.read('credit-note-lines-s19-s7', 'credit_note', byLines);
  const byAmount = await de.creditNote({ invoiceId: domestic.id, amount: 10000 });
  await de.read('credit-note-amount-s19-s7', 'credit_note', byAmount);

  // Intra-community supply of goods to Austria; the supply date is the issue date.
  const k = await de.rate({
    displayName: 'Innergemeinschaftliche Lieferung',
    percentage: 0,
    inclusive: false,
    category: 'K',
    exemptionReason: 'Steuerfreie innergemeinschaftliche Lieferung (§ 4 Nr. 1 b UStG)',
  });
  const vienna = await de.customer({
    name: 'Wiener Café KG',
    email: 'office@wiener-cafe.example',
    address: address('Graben 10', '1010', 'Wien', 'AT'),
    taxIds: [{ type: 'eu_vat', value: 'ATU87654321' }],
    locale: 'de-AT',
  });
  const intra = await de.invoice({
    customerId: vienna,
    currency: 'eur',
    defaultTaxRates: [k],
    lines: [{ description: 'Industriepumpe', quantity: 2, unitAmount: 480000, unitCode: 'H87' }],
  });
  await de.read('k-intra-community-at', 'invoice', intra.id);
  const intraCredit = await de.creditNote({ invoiceId: intra.id, amount: 48000 });
  await de.read('credit-note-k', 'credit_note', intraCredit);

  // Reverse charge: the API makes the S rate AE for a reverse-charge customer.
  const lyon = await de.customer({
    name: 'Lyon Industrie SA',
    email: 'factures@lyon-industrie.example',
    address: address('1 Place Bellecour', '69002', 'Lyon', 'FR'),
    taxIds: [{ type: 'eu_vat', value: 'FR82542065479' }],
    taxExempt: 'reverse',
    locale: 'fr',
  });
  const reverse = await de.invoice({
    customerId: lyon,
    currency: 'eur',
    defaultTaxRates: [s19],
    lines: [
      { description: 'Wartung Fertigungsstraße', quantity: 16, unitAmount: 11000, unitCode: 'HUR' },
      { description: 'Ersatzteile', quantity: 1, unitAmount: 84990 },
    ],
    servicePeriod: { start: '2026-10-01', end: '2026-10-31' },
  });
  await de.read('ae-reverse-charge-customer-fr', 'invoice', reverse.id);
  const reverseCredit = await de.creditNote({ invoiceId: reverse.id, amount: 22000 });
  await de.read('credit-note-ae-reverse-charge', 'credit_note', reverseCredit);

  // Exports: United States in USD, Japan in JPY, Kuwait in KWD (three minor digits).
  const export0 = await de.rate({
    displayName: 'Ausfuhr',
    percentage: 0,
    inclusive: false,
    category: 'G',
    exemptionReason: 'Steuerfreie Ausfuhrlieferung (§ 4 Nr. 1 a UStG)',
  });
  const boston = await de.customer({
    name: 'Acme Corporation',
    email: 'ap@acme.example',
    address: { ...address('1 Federal St', '02110', 'Boston', 'US'), state: 'MA' },
    electronicAddress: { scheme: '0060', value: '123456789' },
    locale: 'en',
  });
  const usd = await de.invoice({
    customerId: boston,
    currency: 'usd',
    defaultTaxRates: [export0],
    lines: [
      { description: 'Hydraulic press', quantity: 1, unitAmount: 2450000, unitCode: 'H87' },
      { description: 'Steel rods', quantity: 120, unitAmount: 350, unitCode: 'KGM' },
    ],
    purchaseOrder: 'ACME-PO-88812',
  });
  await de.read('g-export-us-usd', 'invoice', usd.id);
  const tokyo = await de.customer({
    name: 'Tokyo Trading KK',
    email: 'keiri@tokyo-trading.example',
    address: address('1-1 Marunouchi', '100-0005', 'Tokyo', 'JP'),
    electronicAddress: { scheme: '0188', value: '1234567890123' },
    locale: 'en',
  });
  const jpy = await de.invoice({
    customerId: tokyo,
    currency: 'jpy',
    defaultTaxRates: [export0],
    lines: [
      { description: 'Präzisionslager', quantity: 40, unitAmount: 1833 },
      { description: 'Messuhr', quantity: 3, unitAmount: 12999 },
    ],
  });
  await de.read('g-export-jp-jpy', 'invoice', jpy.id);
  const jpyCredit = await de.creditNote({ invoiceId: jpy.id, amount: 12999 });
  await de.read('credit-note-g-jpy', 'credit_note', jpyCredit);
  const kuwait = await de.customer({
    name: 'Gulf Supplies WLL',
    email: 'accounts@gulf-supplies.example',
    address: address('Al Soor Street 12', '13001', 'Kuwait City', 'KW'),
    electronicAddress: { scheme: '0088', value: '4098765432101' },
    locale: 'en',
  });
  const kwd = await de.invoice({
    customerId: kuwait,
    currency: 'kwd',
    defaultTaxRates: [export0],
    lines: [
      { description: 'Spare parts', quantity: 2, unitAmount: 12500 },
      { description: 'Handling', quantity: 3, unitAmount: 1250 },
    ],
  });
  await de.read('g-export-kw-kwd', 'invoice', kwd.id);
  // 1.255 KWD cannot be written with the two decimals EN 16931 allows on amounts.
  const fils = await de.invoice({
    customerId: kuwait,
    currency: 'kwd',
    defaultTaxRates: [export0],
    lines: [{ description: 'Gasket', quantity: 1, unitAmount: 1255 }],
  });
  const filsFields = [
    'lines[0].amount',
    'taxAmounts[0].taxableAmount',
    'totalExcludingTax',
    'total',
    'amountRemaining',
  ];
  await de.read('kwd-third-decimal-refused', 'invoice', fils.id, {
    ubl: filsFields,
    cii: filsFields,
  });

  // Outside the scope of VAT: no other category, the seller known by its registration.
  const outside = await de.rate({
    displayName: 'Nicht steuerbar',
    percentage: 0,
    inclusive: false,
    category: 'O',
    exemptionReason: 'Nicht im Inland steuerbare Leistung',
  });
  const zurich = await de.customer({
    name: 'Zürcher Verein',
    email: 'kasse@zuercher-verein.example',
    address: address('Bahnhofstrasse 1', '8001', 'Zürich', 'CH'),
    electronicAddress: { scheme: '0183', value: 'CHE123456789' },
  });
  const o = await de.invoice({
    customerId: zurich,
    currency: 'chf',
    defaultTaxRates: [outside],
    lines: [{ description: 'Mitgliedsbeitrag 2027', quantity: 1, unitAmount: 50000 }],
  });
  await de.read('o-outside-scope-ch-chf', 'invoice', o.id);
  const oCredit = await de.creditNote({ invoiceId: o.id, amount: 25000, reason: 'order_change' });
  await de.read('credit-note-o', 'credit_note', oCredit);

  // A total of 0 (paid at issue), with a note whose text XML must escape.
  const free = await de.invoice({
    customerId: berlin,
    currency: 'eur',
    defaultTaxRates: [s19],
    lines: [
      { description: 'Probelauf <Prototyp> & "Muster"', quantity: 1, unitAmount: 25000 },
      { description: 'Gutschrift Probelauf', quantity: 1, unitAmount: -25000 },
    ],
    memo: 'Kostenlos im Rahmen der Aktion <Frühjahr & Sommer>.',
  });
  await de.read('zero-total-escaped-text', 'invoice', free.id);

  // Refused: an exempt customer charged no tax on a standard rate (BR-S-09: needs category E).
  const exempt = await de.customer({
    name: 'Stiftung Gemeinwohl',
    email: 'buchhaltung@gemeinwohl.example',
    address: address('Marienplatz 8', '80331', 'München', 'DE'),
    taxIds: [{ type: 'eu_vat', value: 'DE111111125' }],
    taxExempt: 'exempt',
  });
  const exemptInvoice = await de.invoice({
    customerId: exempt,
    currency: 'eur',
    defaultTaxRates: [s19],
    lines: [{ description: 'Beratung', quantity: 2, unitAmount: 9500, unitCode: 'HUR' }],
  });
  const rateCategory = [`taxRates[${s19}].category`];
  await de.read('exempt-customer-on-s-refused', 'invoice', exemptInvoice.id, {
    ubl: rateCategory,
    cii: rateCategory,
  });
  // Refused: a customer known only by name and e-mail.
  const bare = await de.customer({ name: 'Walk-in Kunde', email: 'kunde@example.com' });
  const bareInvoice = await de.invoice({
    customerId: bare,
    currency: 'eur',
    defaultTaxRates: [s19],
    lines: [{ description: 'Ersatzfilter', quantity: 1, unitAmount: 2990 }],
  });
  await de.read('customer-without-address-refused', 'invoice', bareInvoice.id, {
    ubl: ['customer.address.country', 'customer.electronicAddress'],
    cii: ['customer.address.country'],
  });
  // Refused: a line with no tax rate on a taxed invoice (EN 16931 gives every line a category).
  const untaxed = await de.invoice({
    customerId: berlin,
    currency: 'eur',
    defaultTaxRates: [s19],
    lines: [
      { description: 'Wartung', quantity: 1, unitAmount: 19000 },
      { description: 'Trinkgeld', quantity: 1, unitAmount: 1000, taxRates: [] },
    ],
  });
  await de.read('line-without-rate-refused', 'invoice', untaxed.id, {
    ubl: ['lines[1].taxRates'],
    cii: ['lines[1].taxRates'],
  });
  return de.documents;
}
