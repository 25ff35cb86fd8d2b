// Gaps only Peppol BIS Billing 3.0 has (the UBL syntax): electronic addresses on the network,
// identifier check digits, and the national rules that apply by the seller's (and buyer's)
// country. Countries are those the rules read: the address country, or for the seller's
// "supplierCountry" the VAT id's prefix first.
import type { DocumentModel } from '../model.ts';
import { isSepaIban } from './codes.ts';
import { isWellFormedIdentifier, legalRegistration } from './identifiers.ts';
import { clean } from './semantic.ts';
import { vatBreakdown } from './vat.ts';

type Add = (field: string, rule: string, reason: string) => void;

function electronicAddresses(model: DocumentModel, add: Add): void {
  for (const [role, party] of [
    ['seller', model.seller],
    ['customer', model.buyer],
  ] as const) {
    const address = party.electronicAddress;
    if (!address) {
      add(
        `${role}.electronicAddress`,
        role === 'seller' ? 'PEPPOL-EN16931-R020' : 'PEPPOL-EN16931-R010',
        `Peppol requires the ${role}'s electronic address (e.g. 0088 GLN, 9930 German VAT id).`,
      );
    } else if (!isWellFormedIdentifier(address.scheme, address.value.trim())) {
      add(
        `${role}.electronicAddress`,
        'PEPPOL-COMMON-R040',
        `The ${role}'s electronic address is not a valid ${address.scheme} identifier (check digit or length).`,
      );
    }
  }
}

function germany(model: DocumentModel, add: Add): void {
  const rule = (id: string) => `DE-R-${id}`;
  if (!clean(model.payment.iban))
    add(
      'seller.iban',
      rule('001'),
      'German domestic e-invoices need payment instructions (XRechnung).',
    );
  if (!clean(model.seller.phone))
    add(
      'seller.phone',
      rule('006'),
      "German domestic e-invoices need the seller's contact telephone number (XRechnung).",
    );
  if (!clean(model.seller.email))
    add(
      'seller.email',
      rule('007'),
      "German domestic e-invoices need the seller's contact e-mail.",
    );
  if (!clean(model.seller.address?.city))
    add('seller.address.city', rule('003'), "German domestic e-invoices need the seller's city.");
  if (!clean(model.seller.address?.postalCode))
    add(
      'seller.address.postalCode',
      rule('004'),
      "German domestic e-invoices need the seller's postal code.",
    );
  if (!clean(model.buyer.address?.city))
    add(
      'customer.address.city',
      rule('008'),
      "German domestic e-invoices need the customer's city.",
    );
  if (!clean(model.buyer.address?.postalCode))
    add(
      'customer.address.postalCode',
      rule('009'),
      "German domestic e-invoices need the customer's postal code.",
    );
  if (!clean(model.buyerReference))
    add(
      'buyerReference',
      rule('015'),
      'German domestic e-invoices need a buyer reference (Leitweg-ID or similar).',
    );
  if ((model.paymentTerms ?? '').split(/\r?\n/).some((line) => line.trim().startsWith('#'))) {
    add(
      'paymentTerms',
      rule('018'),
      'Payment terms lines starting with # are read as XRechnung cash-discount (Skonto) statements.',
    );
  }
}

function netherlands(model: DocumentModel, domestic: boolean, add: Add): void {
  const address = model.seller.address;
  for (const [part, field] of [
    ['line1', 'line1'],
    ['city', 'city'],
    ['postalCode', 'postalCode'],
  ] as const) {
    if (!clean(address?.[part]))
      add(
        `seller.address.${field}`,
        'NL-R-002',
        'Dutch sellers need street, city and postal code.',
      );
    if (domestic && !clean(model.buyer.address?.[part]))
      add(
        `customer.address.${field}`,
        'NL-R-004',
        "Dutch domestic e-invoices need the customer's street, city and postal code.",
      );
  }
  const registration = legalRegistration(model.seller.companyRegistration, 'NL');
  if (registration && !registration.scheme)
    add(
      'seller.companyRegistration',
      'NL-R-003',
      "A Dutch seller's registration must be its KvK number (8 digits) or OIN (20 digits).",
    );
  if (model.kind === 'credit_note' && !model.creditedInvoice)
    add('invoiceId', 'NL-R-001', 'Dutch credit notes name the corrected invoice.');
  if (model.kind === 'invoice' && model.totals.amountDue > 0 && !clean(model.payment.iban))
    add('seller.iban', 'NL-R-007', 'Dutch sellers state how to pay.');
}

function registrationRequired(
  model: DocumentModel,
  country: string,
  rule: string,
  what: string,
  add: Add,
): void {
  const registration = legalRegistration(model.seller.companyRegistration, country);
  if (!registration?.scheme) add('seller.companyRegistration', rule, what);
}

/** The Peppol gaps of a document (UBL only). */
/** Peppol keeps every line's period (BG-26) inside the document's (BG-14), when it has one. */
function linePeriods(model: DocumentModel, add: Add): void {
  const period = model.servicePeriod;
  if (!period) return;
  model.lines.forEach(({ period: line }, i) => {
    if (line && line.start < period.start)
      add(
        'servicePeriod',
        'PEPPOL-EN16931-R110',
        `The service period must include the period of lines[${i}], which starts ${line.start}.`,
      );
    if (line && line.end > period.end)
      add(
        'servicePeriod',
        'PEPPOL-EN16931-R111',
        `The service period must include the period of lines[${i}], which ends ${line.end}.`,
      );
  });
}

export function peppolGaps(model: DocumentModel, add: Add): void {
  electronicAddresses(model, add);
  linePeriods(model, add);
  const sellerCountry = clean(model.seller.address?.country);
  const buyerCountry = clean(model.buyer.address?.country);
  const outsideScope = vatBreakdown(model).groups.some((g) => g.category === 'O');
  const vatId = outsideScope ? null : clean(model.seller.vatId);
  const supplierCountry = vatId ? vatId.slice(0, 2).toUpperCase() : sellerCountry;
  const domestic = sellerCountry !== null && sellerCountry === buyerCountry;

  if (supplierCountry === 'GR' || supplierCountry === 'EL') {
    add(
      'number',
      'GR-R-001',
      "Peppol requires Greek sellers' invoice numbers in the six-part myDATA form with a MARK (GR-R-001, GR-R-004), which this API does not produce.",
    );
  }
  if (sellerCountry === 'DE' && domestic) germany(model, add);
  if (sellerCountry === 'NL') netherlands(model, domestic, add);
  if (sellerCountry === 'DK') {
    registrationRequired(
      model,
      'DK',
      'DK-R-002',
      'Danish sellers need their CVR number (8 digits) as company registration.',
      add,
    );
    const iban = clean(model.payment.iban);
    if (domestic && iban && !isSepaIban(iban))
      add(
        'seller.iban',
        'DK-R-005',
        'Danish domestic e-invoices allow SEPA credit transfer, not code 30.',
      );
    if (domestic && model.kind === 'credit_note' && model.totals.amountDue < 0)
      add('total', 'DK-R-016', 'Danish credit notes cannot have a negative total.');
  }
  if (sellerCountry === 'IS') {
    registrationRequired(
      model,
      'IS',
      'IS-R-002',
      'Icelandic sellers need their kennitala (10 digits) as company registration.',
      add,
    );
    if (!clean(model.seller.address?.line1))
      add('seller.address.line1', 'IS-R-003', 'Icelandic sellers need street and postal code.');
    if (!clean(model.seller.address?.postalCode))
      add(
        'seller.address.postalCode',
        'IS-R-003',
        'Icelandic sellers need street and postal code.',
      );
    if (domestic)
      add(
        'customer.companyRegistration',
        'IS-R-004',
        "Icelandic domestic e-invoices need the customer's kennitala, which customers do not carry.",
      );
  }
  if (supplierCountry === 'IT') {
    const italian = { line1: 'IT-R-002', city: 'IT-R-003', postalCode: 'IT-R-004' } as const;
    for (const [part, rule] of Object.entries(italian) as [keyof typeof italian, string][]) {
      if (!clean(model.seller.address?.[part])) {
        add(`seller.address.${part}`, rule, 'Italian sellers need street, city and postal code.');
      }
    }
  }
  if (sellerCountry === 'SE') {
    if (clean(model.seller.companyRegistration))
      registrationRequired(
        model,
        'SE',
        'SE-R-013',
        "A Swedish seller's registration must be its organisation number (10 digits).",
        add,
      );
    if (vatId?.startsWith('SE')) {
      if (!/^SE[0-9]{12}$/.test(vatId))
        add('seller.taxId', 'SE-R-001', 'Swedish VAT ids are SE and 12 digits.');
      for (const group of vatBreakdown(model).groups) {
        if (group.category === 'S' && !['25', '12', '6'].includes(group.percent)) {
          add(
            `taxRates[${group.entries[0]!.taxRateId}].percentage`,
            'SE-R-006',
            'Swedish standard rates are 25, 12 or 6 %.',
          );
        }
      }
    }
  }
  if (
    supplierCountry === 'NO' &&
    vatId &&
    !(/^NO[0-9]{9}MVA$/.test(vatId) && isWellFormedIdentifier('0192', vatId.slice(2, 11)))
  ) {
    add('seller.taxId', 'NO-R-001', 'Norwegian VAT ids are NO, the organisation number and MVA.');
  }
}
