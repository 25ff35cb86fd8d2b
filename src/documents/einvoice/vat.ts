// The VAT breakdown (BG-23) as EN 16931 wants it. The model has one entry per tax rate; the
// e-invoice has one group per VAT category and rate (S, L, M) or per category alone (Z, E, AE,
// K, G, O: BR-E-01, BR-AE-01, BR-IC-01, BR-G-01 and BR-O-01 allow exactly one such group, and
// their rate is 0 by definition). Two rates that land in one group (two 19 % rates, two
// exemptions) are added up: the rules compare each group with the sum of its lines (BR-S-08).
import { formatPercentage, parsePercentage } from '../../taxes/percentage.ts';
import type { DocumentModel, TaxBreakdownEntry, VatCategory } from '../model.ts';

/** Categories whose rate is 0 whatever the tax rate says (BR-Z-05, BR-E-05, BR-AE-05, …). */
const ZERO_RATE = new Set<VatCategory>(['Z', 'E', 'AE', 'K', 'G', 'O']);

/** Categories that state why no VAT is charged (BR-E-10, BR-AE-10, BR-IC-10, BR-G-10, BR-O-10). */
export const EXEMPTION_CATEGORIES = new Set<VatCategory>(['E', 'AE', 'K', 'G', 'O']);

/**
 * VATEX codes (CEF VAT exemption reason code list) that say no more than the category itself:
 * written with the reason text, they satisfy the rules even without it. E has no such code:
 * the exempting article varies (VATEX-EU-132-1A, …), so exempt supplies need the text.
 */
const VATEX: Partial<Record<VatCategory, string>> = {
  AE: 'VATEX-EU-AE',
  K: 'VATEX-EU-IC',
  G: 'VATEX-EU-G',
  O: 'VATEX-EU-O',
};

export interface VatGroup {
  category: VatCategory;
  /** BT-119 / BT-152 as decimal text ("19", "8.875"); "0" for the zero-rated categories. */
  percent: string;
  /** The model's breakdown entries (tax rates) in this group. */
  entries: TaxBreakdownEntry[];
  /** BT-116 and BT-117, minor units. */
  taxableAmount: number;
  taxAmount: number;
  /** BT-120: the one reason text of the group's rates (null when none or when they differ). */
  exemptionReason: string | null;
  /** The distinct reason texts of the group's rates (more than one cannot be written). */
  exemptionReasons: string[];
  /** BT-121. */
  exemptionReasonCode: string | null;
}

/** The rate of an entry as EN 16931 writes it, or null when the text is not a percentage. */
export function entryPercent(entry: TaxBreakdownEntry): string | null {
  if (ZERO_RATE.has(entry.category)) return '0';
  const units = parsePercentage(entry.percentage);
  return units === null ? null : formatPercentage(units);
}

function groupKey(entry: TaxBreakdownEntry): string {
  return ZERO_RATE.has(entry.category)
    ? entry.category
    : `${entry.category} ${entryPercent(entry) ?? entry.percentage}`;
}

export interface VatBreakdown {
  groups: VatGroup[];
  /** The group of each line (same order as model.lines); null when the line has not one rate. */
  lineGroups: (VatGroup | null)[];
}

/**
 * Groups the breakdown entries that the lines use. A line with no rate or several rates has no
 * group (EN 16931 gives each line exactly one category and rate); completeness reports it.
 */
export function vatBreakdown(model: DocumentModel): VatBreakdown {
  const byKey = new Map<string, VatGroup>();
  const groupOf = (entry: TaxBreakdownEntry): VatGroup => {
    const key = groupKey(entry);
    let group = byKey.get(key);
    if (!group) {
      group = {
        category: entry.category,
        percent: entryPercent(entry) ?? entry.percentage,
        entries: [],
        taxableAmount: 0,
        taxAmount: 0,
        exemptionReason: null,
        exemptionReasons: [],
        exemptionReasonCode: EXEMPTION_CATEGORIES.has(entry.category)
          ? (VATEX[entry.category] ?? null)
          : null,
      };
      byKey.set(key, group);
    }
    return group;
  };
  const entries = new Map(model.taxBreakdown.map((e) => [e.taxRateId, e]));
  const lineEntries = model.lines.map((line) =>
    line.taxRateIds.length === 1 ? (entries.get(line.taxRateIds[0]!) ?? null) : null,
  );
  const used = new Set(lineEntries.filter((e) => e !== null));
  // Groups in the breakdown's order, so they come out in a stable, familiar order.
  for (const entry of model.taxBreakdown) {
    if (!used.has(entry)) continue;
    const group = groupOf(entry);
    group.entries.push(entry);
    group.taxableAmount += entry.taxableAmount;
    group.taxAmount += entry.taxAmount;
    const reason = entry.exemptionReason?.trim();
    if (
      EXEMPTION_CATEGORIES.has(entry.category) &&
      reason &&
      !group.exemptionReasons.includes(reason)
    ) {
      group.exemptionReasons.push(reason);
    }
  }
  const groups = [...byKey.values()];
  for (const group of groups) {
    if (group.exemptionReasons.length === 1) group.exemptionReason = group.exemptionReasons[0]!;
  }
  const lineGroups = lineEntries.map((entry) => (entry ? byKey.get(groupKey(entry))! : null));
  return { groups, lineGroups };
}
