// What the conformance run asks the API to issue: sellers in Germany, the Netherlands, Spain
// and France, each set up over HTTP as a user would, billing buyers in a dozen countries.
// Together the documents use every VAT category the API offers (S with one and several rates,
// Z, E, AE from a reverse-charge customer and from an AE rate, K, G, O, L, M), invoices and
// credit notes (of an amount, and of invoice lines on invoices with several rates), inclusive
// and exclusive prices, discount lines, units of measure, supply dates and service periods,
// buyer references and purchase orders, electronic addresses given and derived from VAT ids,
// JPY and KWD; and documents the API must refuse, with the fields it must name.
import { ApiSeller, type ApiDocument } from './api-documents.ts';
import type { ConformanceServer } from './api-server.ts';

const address = (line1: string, postalCode: string, city: string, country: string) => ({
  line1,
  postalCode,
  city,
  country,
});

async function germanSeller(server: ConformanceServer): Promise<ApiDocument[]> {
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

async function dutchSeller(server: ConformanceServer): Promise<ApiDocument[]> {
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

async function spanishSeller(server: ConformanceServer): Promise<ApiDocument[]> {
  const es = new ApiSeller(await server.seller('Comercial Ibérica'), 'es');
  await es.settings({
    legalName: 'Comercial Ibérica SL',
    address: address('Calle de Alcalá 50', '28014', 'Madrid', 'ES'),
    taxId: 'ESB12345678',
    email: 'facturas@iberica.example',
    paymentDetails: { iban: 'ES9121000418450200051332' },
    locale: 'es',
  });
  const s21 = await es.rate({ displayName: 'IVA', percentage: 21, inclusive: false });
  const e = await es.rate({
    displayName: 'IVA exento',
    percentage: 0,
    inclusive: false,
    category: 'E',
    exemptionReason: 'Exento por el artículo 20.Uno.9 LIVA',
  });
  const sevilla = await es.customer({
    name: 'Academia Sevilla SA',
    email: 'pagos@academia-sevilla.example',
    address: address('Calle Sierpes 3', '41004', 'Sevilla', 'ES'),
    taxIds: [{ type: 'eu_vat', value: 'ESA87654321' }],
  });
  const exempt = await es.invoice({
    customerId: sevilla,
    currency: 'eur',
    lines: [
      { description: 'Curso de formación', quantity: 2, unitAmount: 45000, taxRates: [e] },
      { description: 'Material didáctico', quantity: 2, unitAmount: 2500, taxRates: [s21] },
    ],
  });
  await es.read('e-exempt-and-s21', 'invoice', exempt.id);

  // Canary Islands IGIC (L) and Ceuta IPSI (M).
  const igic = await es.rate({
    displayName: 'IGIC',
    percentage: 7,
    inclusive: false,
    category: 'L',
  });
  const ipsi = await es.rate({
    displayName: 'IPSI',
    percentage: 4,
    inclusive: false,
    category: 'M',
  });
  const canarias = await es.customer({
    name: 'Hotel Canarias SA',
    email: 'admin@hotel-canarias.example',
    address: address('Avenida Marítima 2', '35001', 'Las Palmas', 'ES'),
    taxIds: [{ type: 'eu_vat', value: 'ESA11111111' }],
  });
  const islands = await es.invoice({
    customerId: canarias,
    currency: 'eur',
    lines: [
      {
        description: 'Alojamiento',
        quantity: 3,
        unitAmount: 12000,
        unitCode: 'DAY',
        taxRates: [igic],
      },
      { description: 'Transporte (Ceuta)', quantity: 1, unitAmount: 8999, taxRates: [ipsi] },
    ],
  });
  await es.read('l-igic-m-ipsi', 'invoice', islands.id);

  // Reverse charge by the rate itself, to a Portuguese customer.
  const ae = await es.rate({
    displayName: 'Inversión del sujeto pasivo',
    percentage: 0,
    inclusive: false,
    category: 'AE',
    exemptionReason: 'Inversión del sujeto pasivo (art. 84.Uno.2º LIVA)',
  });
  const lisboa = await es.customer({
    name: 'Construções Lisboa Lda',
    email: 'contas@construcoes-lisboa.example',
    address: address('Rua Augusta 20', '1100-053', 'Lisboa', 'PT'),
    taxIds: [{ type: 'eu_vat', value: 'PT501964843' }],
  });
  const aeRate = await es.invoice({
    customerId: lisboa,
    currency: 'eur',
    defaultTaxRates: [ae],
    lines: [
      { description: 'Instalación eléctrica', quantity: 40, unitAmount: 5500, unitCode: 'HUR' },
    ],
  });
  await es.read('ae-rate-pt', 'invoice', aeRate.id);
  return es.documents;
}

async function frenchSeller(server: ConformanceServer): Promise<ApiDocument[]> {
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

async function austrianSeller(server: ConformanceServer): Promise<ApiDocument[]> {
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

/** Every seller's documents, issued through the API and read back. */
export async function apiDocuments(server: ConformanceServer): Promise<ApiDocument[]> {
  const sellers = [germanSeller, dutchSeller, spanishSeller, frenchSeller, austrianSeller];
  return (await Promise.all(sellers.map((seller) => seller(server)))).flat();
}
