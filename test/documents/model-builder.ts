// Builds consistent document models for the fixtures: lines, tax breakdown and totals are
// computed exactly (integers, halves away from zero), the way the invoice module freezes them.
import { divideRounded } from '../../src/money/amount.ts';
import type {
  DocumentLine,
  DocumentModel,
  Party,
  TaxBreakdownEntry,
  VatCategory,
} from '../../src/documents/model.ts';

export interface RateInput {
  id: string;
  displayName: string;
  percentage: string;
  category: VatCategory;
  exemptionReason?: string;
}

export interface LineInput {
  description: string;
  quantity: number;
  /** null: a line priced by its price's scheme (tiers, proration), whose `amount` is given. */
  unitAmount: number | null;
  /** Default quantity × unitAmount. */
  amount?: number;
  unitCode?: string;
  /** Tax rate id; none for a line without tax. */
  rate?: string;
  period?: { start: string; end: string };
}

/** A worked example's references are ones the buyer gave: buyerReferenceGiven defaults to it. */
export type ModelBase = Omit<
  DocumentModel,
  'lines' | 'taxBreakdown' | 'totals' | 'buyerReferenceGiven'
> &
  Partial<Pick<DocumentModel, 'buyerReferenceGiven'>>;

const TAXED = new Set<VatCategory>(['S', 'L', 'M']);

/** "8.875" → [8875n, 1000n]. */
function decimal(text: string): [bigint, bigint] {
  const [whole, fraction = ''] = text.split('.');
  return [BigInt(`${whole}${fraction}`), 10n ** BigInt(fraction.length)];
}

export function buildModel(
  base: ModelBase,
  lineInputs: LineInput[],
  rates: RateInput[],
  prepaid = 0,
): DocumentModel {
  const lines: DocumentLine[] = lineInputs.map((input, index) => {
    const amount = input.amount ?? input.quantity * input.unitAmount!;
    return {
      id: `li_${String(index + 1).padStart(4, '0')}`,
      description: input.description,
      quantity: input.quantity,
      unitCode: input.unitCode ?? 'C62',
      unitAmount: input.unitAmount,
      amount,
      netAmount: amount,
      taxRateIds: input.rate ? [input.rate] : [],
      period: input.period ?? null,
    };
  });

  const taxBreakdown: TaxBreakdownEntry[] = [];
  for (const rate of rates) {
    const ofRate = lines.filter((line) => line.taxRateIds.includes(rate.id));
    const gross = ofRate.reduce((sum, line) => sum + BigInt(line.amount), 0n);
    const [scaled, scale] = TAXED.has(rate.category) ? decimal(rate.percentage) : [0n, 1n];
    let taxable: bigint;
    let tax: bigint;
    if (base.pricesIncludeTax) {
      taxable = divideRounded(gross * 100n * scale, 100n * scale + scaled);
      tax = gross - taxable;
      // Each line's exact share of the rate's net amount; the last line takes the remainder.
      let left = taxable;
      ofRate.forEach((line, i) => {
        const share =
          i === ofRate.length - 1 ? left : divideRounded(BigInt(line.amount) * taxable, gross);
        line.netAmount = Number(share);
        left -= share;
      });
    } else {
      taxable = gross;
      tax = divideRounded(taxable * scaled, 100n * scale);
    }
    taxBreakdown.push({
      taxRateId: rate.id,
      displayName: rate.displayName,
      percentage: rate.percentage,
      category: rate.category,
      exemptionReason: rate.exemptionReason ?? null,
      taxableAmount: Number(taxable),
      taxAmount: Number(tax),
    });
  }

  const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
  const totalExcludingTax = lines.reduce((sum, line) => sum + line.netAmount, 0);
  const tax = taxBreakdown.reduce((sum, entry) => sum + entry.taxAmount, 0);
  const total = totalExcludingTax + tax;
  return {
    ...base,
    buyerReferenceGiven: base.buyerReferenceGiven ?? base.buyerReference,
    lines,
    taxBreakdown,
    totals: { subtotal, totalExcludingTax, tax, total, prepaid, amountDue: total - prepaid },
  };
}

export function party(fields: Partial<Party> & Pick<Party, 'name'>): Party {
  return {
    address: null,
    vatId: null,
    taxIds: fields.vatId ? [{ type: 'eu_vat', value: fields.vatId }] : [],
    companyRegistration: null,
    email: null,
    phone: null,
    electronicAddress: null,
    ...fields,
  };
}
