// Which data an issued document lacks to become a valid EN 16931 e-invoice: every rule of the
// EN 16931 rule set (and, for UBL, of Peppol BIS 3.0: peppol.ts) that depends on data the
// model may lack or carry in a form the rules refuse. Each gap names the API field to fill or
// fix, so the API can answer 409 einvoice_incomplete with `missing`; an empty list means the
// generators produce a document that passes the schema and the rules.
import type { DocumentModel } from '../model.ts';
import { isCurrency } from '../../money/currency.ts';
import { isWritableAmount } from './amounts.ts';
import {
  isCountryCode,
  isEinvoiceCurrency,
  isElectronicAddressScheme,
  hasVatPrefix,
  type EinvoiceSyntax,
} from './codes.ts';
import { clean } from './semantic.ts';
import { peppolGaps } from './peppol.ts';
import { vatGaps, type Add } from './vat-rules.ts';
import { vatBreakdown } from './vat.ts';

export interface EinvoiceGap {
  /** The API field to fill or fix: `seller.taxId`, `customer.address.city`, `lines[1].taxRates`. */
  field: string;
  /** The rule that needs it: `BR-IC-02`, `PEPPOL-EN16931-R010`, `DE-R-006`, … */
  rule: string;
  /** One sentence for people. */
  reason: string;
}

const fieldOrder = new Intl.Collator('en', { numeric: true });
/**
 * The fields the gaps name, each once, sorted by path (`lines[2]` before `lines[10]`): the
 * same set always reads the same, whichever syntax or rule found each field first.
 */
export function gapFields(gaps: readonly EinvoiceGap[]): string[] {
  return [...new Set(gaps.map((g) => g.field))].sort(fieldOrder.compare);
}

/** An e-invoice was asked for a document that lacks data (see `missing`). */
export class EinvoiceDataMissingError extends Error {
  override name = 'EinvoiceDataMissingError';
  readonly gaps: EinvoiceGap[];
  constructor(gaps: EinvoiceGap[]) {
    super(`The document lacks data EN 16931 requires: ${gapFields(gaps).join(', ')}.`);
    this.gaps = gaps;
  }
  get missing(): string[] {
    return gapFields(this.gaps);
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A calendar date YYYY-MM-DD (checked by arithmetic: every invoice's readiness asks). */
function isDate(text: string | null): boolean {
  const parts = text === null ? null : DATE.exec(text);
  if (!parts) return false;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/** Gaps of the document itself, its parties and its lines (both syntaxes). */
function documentGaps(model: DocumentModel, syntax: EinvoiceSyntax, add: Add): void {
  if (model.draft || !clean(model.number))
    add('number', 'BR-02', 'Only an issued document with a number is an e-invoice.');
  if (!isDate(model.issueDate)) add('issueDate', 'BR-03', 'The issue date must be a date.');
  if (model.dueDate !== null && !isDate(model.dueDate))
    add('dueDate', 'PEPPOL-EN16931-F001', 'The due date must be a date.');
  if (model.supplyDate !== null && !isDate(model.supplyDate))
    add('supplyDate', 'PEPPOL-EN16931-F001', 'The supply date must be a date.');
  const period = model.servicePeriod;
  if (period && (!isDate(period.start) || !isDate(period.end) || period.end < period.start)) {
    add(
      'servicePeriod',
      'BR-29',
      'The service period needs a start and an end date, the end not before the start.',
    );
  }
  if (!isCurrency(model.currency) || !isEinvoiceCurrency(model.currency, syntax)) {
    add(
      'currency',
      syntax === 'ubl' ? 'PEPPOL-EN16931-CL007' : 'BR-CL-04',
      `${model.currency.toUpperCase()} is not in the rules' currency list.`,
    );
  }
  if (!clean(model.buyerReference) && !clean(model.purchaseOrder) && syntax === 'ubl') {
    add(
      'buyerReference',
      'PEPPOL-EN16931-R003',
      'A buyer reference or purchase order is required.',
    );
  }
  const credited = model.creditedInvoice;
  if (credited && (!clean(credited.number) || !isDate(credited.issueDate))) {
    add('invoiceId', 'BR-55', 'The corrected invoice needs its number and issue date.');
  }
}

function partyGaps(model: DocumentModel, syntax: EinvoiceSyntax, add: Add): void {
  for (const [role, party] of [
    ['seller', model.seller],
    ['customer', model.buyer],
  ] as const) {
    const seller = role === 'seller';
    if (!clean(party.name))
      add(
        seller ? 'seller.legalName' : 'customer.name',
        seller ? 'BR-06' : 'BR-07',
        `The ${role}'s name is required.`,
      );
    const country = clean(party.address?.country);
    if (!country || !isCountryCode(country)) {
      add(
        `${role}.address.country`,
        seller ? 'BR-09' : 'BR-11',
        `The ${role}'s address needs an ISO 3166 country code.`,
      );
    }
    const vatId = clean(party.vatId);
    if (vatId && !hasVatPrefix(vatId)) {
      add(
        seller ? 'seller.taxId' : 'customer.taxIds',
        'BR-CO-09',
        `The ${role}'s VAT id must start with its country code.`,
      );
    }
    const address = party.electronicAddress;
    if (address?.scheme === 'EM' && clean(address.value) && syntax === 'ubl') {
      // EM is in the CEF EAS list (so CII takes it) but not in Peppol's: a Peppol endpoint is a
      // participant identifier the network looks up to route the document, and an e-mail
      // address is none. It is the default where no VAT-number scheme exists, so say so.
      add(
        `${role}.electronicAddress`,
        'PEPPOL-EN16931-CL008',
        `The ${role}'s electronic address is an e-mail address (scheme EM), which Peppol cannot route: Peppol delivers only to a participant identifier registered on its network, with a scheme from the Peppol EAS list (e.g. 0088 GLN, 0208 Belgian enterprise number, 0192 Norwegian organisation number, 9930 German VAT number). Set electronicAddress to the ${role}'s Peppol identifier; the CII e-invoice and the Factur-X PDF accept EM.`,
      );
    } else if (
      address &&
      (!clean(address.value) || !isElectronicAddressScheme(address.scheme, syntax))
    ) {
      add(
        `${role}.electronicAddress`,
        syntax === 'ubl' ? 'PEPPOL-EN16931-CL008' : 'BR-CL-25',
        `The ${role}'s electronic address needs a value and a scheme from the ${syntax === 'ubl' ? 'Peppol' : 'CEF'} EAS list.`,
      );
    }
  }
}

function amountGaps(model: DocumentModel, add: Add): void {
  const check = (field: string, rule: string, amount: number) => {
    if (!isWritableAmount(amount, model.currency)) {
      add(field, rule, `${field} has more decimals than the two EN 16931 allows for amounts.`);
    }
  };
  model.lines.forEach((line, i) => check(`lines[${i}].amount`, 'BR-DEC-23', line.netAmount));
  model.taxBreakdown.forEach((t, i) => {
    check(`taxAmounts[${i}].taxableAmount`, 'BR-DEC-19', t.taxableAmount);
    check(`taxAmounts[${i}].amount`, 'BR-DEC-20', t.taxAmount);
  });
  const t = model.totals;
  check('totalExcludingTax', 'BR-DEC-12', t.totalExcludingTax);
  check('tax', 'BR-DEC-13', t.tax);
  check('total', 'BR-DEC-14', t.total);
  check('amountPaid', 'BR-DEC-16', t.prepaid);
  check('amountRemaining', 'BR-DEC-18', t.amountDue);
}

function lineGaps(model: DocumentModel, add: Add): void {
  if (model.lines.length === 0) add('lines', 'BR-16', 'An e-invoice has at least one line.');
  const { lineGroups } = vatBreakdown(model);
  model.lines.forEach((line, i) => {
    if (!clean(line.description))
      add(`lines[${i}].description`, 'BR-25', 'Every line needs a description (the item name).');
    if (!/^[A-Z0-9]{1,3}$/.test(line.unitCode))
      add(`lines[${i}].unitCode`, 'BR-CL-23', 'The unit must be a UN/ECE Recommendation 20 code.');
    if (!lineGroups[i]) {
      add(
        `lines[${i}].taxRates`,
        'BR-CO-04',
        'EN 16931 gives every line exactly one VAT category and rate; this line has ' +
          (line.taxRateIds.length === 1
            ? 'a rate missing from the breakdown.'
            : `${line.taxRateIds.length === 0 ? 'none' : line.taxRateIds.length}.`),
      );
    }
    const period = line.period;
    if (period && (!isDate(period.start) || !isDate(period.end) || period.end < period.start))
      add(
        `lines[${i}].period`,
        'BR-30',
        "A line's period needs a start and an end date, the end not before the start.",
      );
  });
}

function totalGaps(model: DocumentModel, syntax: EinvoiceSyntax, add: Add): void {
  const t = model.totals;
  const { groups, lineGroups } = vatBreakdown(model);
  const lineNets = model.lines.reduce((s, l) => s + l.netAmount, 0);
  if (lineNets !== t.totalExcludingTax)
    add(
      'totalExcludingTax',
      'BR-CO-10',
      "The lines' net amounts do not add up to the total excluding tax.",
    );
  const ungrouped = lineGroups.some((g) => g === null);
  if (!ungrouped && groups.reduce((s, g) => s + g.taxAmount, 0) !== t.tax)
    add('tax', 'BR-CO-14', "The rates' tax amounts do not add up to the tax.");
  if (t.totalExcludingTax + t.tax !== t.total)
    add('total', 'BR-CO-15', 'The total is not the total excluding tax plus the tax.');
  if (t.total - t.prepaid !== t.amountDue)
    add('amountRemaining', 'BR-CO-16', 'The amount due is not the total less the amount paid.');
  // UBL's CreditNote carries its due date in the payment means, so only with an account.
  const dueDate =
    model.dueDate !== null &&
    !(syntax === 'ubl' && model.kind === 'credit_note' && !clean(model.payment.iban));
  if (t.amountDue > 0 && !dueDate && !clean(model.paymentTerms)) {
    add(
      model.kind === 'invoice' ? 'dueDate' : 'paymentTerms',
      'BR-CO-25',
      'An amount due needs a due date or payment terms.',
    );
  }
}

/** Every gap, for one syntax or (without one) for both. */
export function einvoiceGaps(model: DocumentModel, syntax?: EinvoiceSyntax): EinvoiceGap[] {
  if (!syntax)
    return [...einvoiceGaps(model, 'ubl'), ...einvoiceGaps(model, 'cii')].filter(
      (g, i, all) => all.findIndex((o) => o.field === g.field && o.rule === g.rule) === i,
    );
  const gaps: EinvoiceGap[] = [];
  const add: Add = (field, rule, reason) => gaps.push({ field, rule, reason });
  documentGaps(model, syntax, add);
  partyGaps(model, syntax, add);
  lineGaps(model, add);
  if (isCurrency(model.currency)) amountGaps(model, add);
  vatGaps(model, add);
  totalGaps(model, syntax, add);
  if (syntax === 'ubl') peppolGaps(model, add);
  return gaps;
}

/**
 * The API fields an issued document lacks for an EN 16931 e-invoice (for both syntaxes, or
 * the one named); [] when toUbl / toCii produce a valid document.
 */
export function missingEinvoiceData(model: DocumentModel, syntax?: EinvoiceSyntax): string[] {
  return gapFields(einvoiceGaps(model, syntax));
}

export function assertEinvoiceComplete(model: DocumentModel, syntax: EinvoiceSyntax): void {
  const gaps = einvoiceGaps(model, syntax);
  if (gaps.length > 0) throw new EinvoiceDataMissingError(gaps);
}
