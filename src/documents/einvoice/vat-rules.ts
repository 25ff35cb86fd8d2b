// The EN 16931 VAT rules that depend on the tax rates the document uses: one category and
// rate per group, the tax each category allows, exemption reasons, the VAT ids each category
// needs (BR-S-02 … BR-AG-02, BR-AE-02, BR-IC-02), and the "not subject to VAT" rules (BR-O-*).
import type { DocumentModel, TaxBreakdownEntry, VatCategory } from '../model.ts';
import { clean } from './semantic.ts';
import { taxMatchesRate } from './tax-check.ts';
import { EXEMPTION_CATEGORIES, vatBreakdown, type VatGroup } from './vat.ts';

/** Records a gap: the field that is missing or wrong, the EN 16931 rule, and why. */
export type Add = (field: string, rule: string, reason: string) => void;

/** The rule family of a category in the rule ids (BR-S-…; BR-IC-… for K, BR-AF-… for L). */
const FAMILY: Record<VatCategory, string> = {
  S: 'S',
  Z: 'Z',
  E: 'E',
  AE: 'AE',
  K: 'IC',
  G: 'G',
  O: 'O',
  L: 'AF',
  M: 'AG',
};

const rateField = (entry: TaxBreakdownEntry, field: string) =>
  `taxRates[${entry.taxRateId}].${field}`;

/** The group's rate and tax as the rules see them (BR-S-05, BR-x-09, BR-CO-17). */
function groupTaxGaps(model: DocumentModel, group: VatGroup, add: Add): void {
  const rule = `BR-${FAMILY[group.category]}-09`;
  const blame = (reason: string, field = 'category', id = rule) =>
    group.entries.forEach((entry) => add(rateField(entry, field), id, reason));
  if (!/^\d+(\.\d+)?$/.test(group.percent))
    return blame('The rate is not a percentage.', 'percentage', 'BR-48');
  if (group.category === 'S' && Number(group.percent) === 0) {
    return blame(
      'A standard-rated (S) rate must be above 0 %; use Z, E or another category.',
      'category',
      'BR-S-05',
    );
  }
  if (['S', 'L', 'M'].includes(group.category)) {
    if (!taxMatchesRate(group.taxableAmount, group.taxAmount, group.percent, model.currency)) {
      blame(
        'The tax charged is not the rate applied to the taxable amount (a customer that is exempt or under reverse charge needs category E or AE).',
      );
    }
  } else if (group.taxAmount !== 0) {
    blame(`Category ${group.category} carries no VAT, but this rate charged some.`);
  }
}

function exemptionGaps(group: VatGroup, add: Add): void {
  if (group.category === 'E' && group.exemptionReasons.length === 0) {
    add(
      rateField(group.entries[0]!, 'exemptionReason'),
      'BR-E-10',
      'An exempt (E) rate needs the legal reason for the exemption.',
    );
  }
  if (group.exemptionReasons.length > 1) {
    for (const entry of group.entries.slice(1)) {
      add(
        rateField(entry, 'exemptionReason'),
        `BR-${FAMILY[group.category]}-01`,
        `The rates of category ${group.category} on one document must share one exemption reason.`,
      );
    }
  }
}

/** The VAT gaps of a document (both syntaxes). */
export function vatGaps(model: DocumentModel, add: Add): void {
  const { groups, lineGroups } = vatBreakdown(model);
  const categories = new Set(groups.map((g) => g.category));
  for (const group of groups) {
    groupTaxGaps(model, group, add);
    if (EXEMPTION_CATEGORIES.has(group.category)) exemptionGaps(group, add);
    // Sums are compared only when every line has its rate (else that gap is the cause).
    const lines = model.lines.filter((_, i) => lineGroups[i] === group);
    const sum = lines.reduce((s, l) => s + l.netAmount, 0);
    if (lineGroups.every((g) => g !== null) && sum !== group.taxableAmount) {
      add(
        'taxAmounts',
        `BR-${FAMILY[group.category]}-08`,
        `The lines of ${group.category} ${group.percent} % do not add up to their taxable amount.`,
      );
    }
  }
  if (categories.has('O')) {
    for (const entry of groups.filter((g) => g.category !== 'O').flatMap((g) => g.entries)) {
      add(
        rateField(entry, 'category'),
        'BR-O-11',
        'A document with supplies outside the scope of VAT (O) cannot have other VAT categories.',
      );
    }
    if (!clean(model.seller.companyRegistration)) {
      add(
        'seller.companyRegistration',
        'BR-CO-26',
        'Outside the scope of VAT the VAT ids are left out (BR-O-02), so the seller is identified by its company registration.',
      );
    }
  }
  const taxed = [...categories].find((c) => c !== 'O');
  if (taxed && !clean(model.seller.vatId)) {
    add(
      'seller.taxId',
      `BR-${FAMILY[taxed]}-02`,
      `VAT category ${taxed} requires the seller's VAT id.`,
    );
  }
  const buyerVat = clean(model.buyer.vatId);
  if (categories.has('AE') && !buyerVat)
    add('customer.taxIds', 'BR-AE-02', "Reverse charge (AE) requires the customer's VAT id.");
  if (categories.has('K') && !buyerVat)
    add(
      'customer.taxIds',
      'BR-IC-02',
      "An intra-community supply (K) requires the customer's VAT id.",
    );
  if (categories.has('K') && !model.supplyDate && !model.servicePeriod) {
    add('supplyDate', 'BR-IC-11', 'An intra-community supply needs its supply date or period.');
  }
}
