// Builds DocumentModels for the e-invoice tests and the conformance corpus the way the invoice
// module prices a document: the breakdown comes from taxes/breakdown.ts (one rounding per
// rate), and for inclusive prices each line's net amount is its share of its rate's taxable
// amount, the shares adding up to it exactly.
import { divideRounded } from '../../../src/money/amount.ts';
import { computeTaxBreakdown, type TaxExempt } from '../../../src/taxes/breakdown.ts';
import { parsePercentage } from '../../../src/taxes/percentage.ts';
import type {
  DocumentLine,
  DocumentModel,
  Party,
  PaymentDetails,
  VatCategory,
} from '../../../src/documents/model.ts';

export interface RateSpec {
  id: string;
  category: VatCategory;
  percentage: string;
  exemptionReason?: string;
}

export interface LineSpec {
  description: string;
  /** Whole units, or a metered line's decimal text ("12.5"), whose `amount` is given. */
  quantity: number | string;
  /** null: a line priced by its price's scheme, whose `amount` is given. */
  unitAmount: number | null;
  /** Default quantity × unitAmount (whole quantities). */
  amount?: number;
  /** One rate id, several, or none (default: the first rate). */
  rates?: string[];
  unitCode?: string;
  period?: { start: string; end: string };
}

export interface ModelSpec {
  kind?: 'invoice' | 'credit_note';
  number?: string;
  currency?: string;
  seller: Party;
  buyer: Party;
  rates: RateSpec[];
  lines: LineSpec[];
  pricesIncludeTax?: boolean;
  taxExempt?: TaxExempt;
  issueDate?: string;
  dueDate?: string | null;
  supplyDate?: string | null;
  servicePeriod?: { start: string; end: string } | null;
  buyerReference?: string | null;
  purchaseOrder?: string | null;
  paymentTerms?: string | null;
  payment?: Partial<PaymentDetails>;
  prepaid?: number;
  note?: string | null;
  creditedInvoice?: { id: string; number: string; issueDate: string } | null;
}

/** Net amounts of inclusive lines: each line's share of its rate's tax, the last takes the rest. */
function inclusiveNets(
  amounts: bigint[],
  lineRates: string[][],
  taxByRate: Map<string, bigint>,
): bigint[] {
  const nets = [...amounts];
  for (const [rateId, tax] of taxByRate) {
    const members = amounts.map((_, i) => i).filter((i) => lineRates[i]![0] === rateId);
    const gross = members.reduce((s, i) => s + amounts[i]!, 0n);
    let left = tax;
    members.forEach((i, k) => {
      const share =
        k === members.length - 1 || gross === 0n ? left : divideRounded(amounts[i]! * tax, gross);
      nets[i] = amounts[i]! - share;
      left -= share;
    });
  }
  return nets;
}

export function buildModel(spec: ModelSpec): DocumentModel {
  const currency = spec.currency ?? 'eur';
  const inclusive = spec.pricesIncludeTax ?? false;
  const lineRates = spec.lines.map((l) => l.rates ?? (spec.rates[0] ? [spec.rates[0].id] : []));
  const amounts = spec.lines.map((l) =>
    l.amount !== undefined ? BigInt(l.amount) : BigInt(l.quantity) * BigInt(l.unitAmount!),
  );
  const rates = new Map(
    spec.rates.map((r) => [
      r.id,
      { id: r.id, displayName: 'VAT', percentage: parsePercentage(r.percentage)!, inclusive },
    ]),
  );
  const breakdown = computeTaxBreakdown(
    amounts.map((amount, i) => ({ amount, taxRateIds: lineRates[i]! })),
    rates,
    spec.taxExempt ?? 'none',
  );
  const taxByRate = new Map(breakdown.taxAmounts.map((t) => [t.rate.id, t.amount]));
  const nets = inclusive ? inclusiveNets(amounts, lineRates, taxByRate) : amounts;
  const lines: DocumentLine[] = spec.lines.map((l, i) => ({
    id: `li_${i + 1}`,
    description: l.description,
    quantity: l.quantity,
    unitCode: l.unitCode ?? 'C62',
    unitAmount: l.unitAmount,
    amount: Number(amounts[i]),
    netAmount: Number(nets[i]),
    taxRateIds: lineRates[i]!,
    period: l.period ?? null,
  }));
  const specs = new Map(spec.rates.map((r) => [r.id, r]));
  const prepaid = spec.prepaid ?? 0;
  const total = Number(breakdown.total);
  const kind = spec.kind ?? 'invoice';
  return {
    kind,
    draft: false,
    id: kind === 'invoice' ? 'inv_test' : 'cn_test',
    number: spec.number ?? (kind === 'invoice' ? 'INV-000001' : 'CN-000001'),
    issueDate: spec.issueDate ?? '2026-11-24',
    issuedAt: `${spec.issueDate ?? '2026-11-24'}T10:00:00.000Z`,
    dueDate: spec.dueDate === undefined ? (kind === 'invoice' ? '2026-12-08' : null) : spec.dueDate,
    supplyDate: spec.supplyDate === undefined ? '2026-11-20' : spec.supplyDate,
    servicePeriod: spec.servicePeriod ?? null,
    currency,
    locale: 'en',
    seller: spec.seller,
    buyer: spec.buyer,
    buyerReference: spec.buyerReference === undefined ? 'cus_test' : spec.buyerReference,
    buyerReferenceGiven: spec.buyerReference ?? null,
    purchaseOrder: spec.purchaseOrder ?? null,
    paymentTerms: spec.paymentTerms ?? null,
    payment: { iban: null, bic: null, accountName: null, instructions: null, ...spec.payment },
    pricesIncludeTax: inclusive,
    lines,
    taxBreakdown: breakdown.taxAmounts.map((t) => ({
      taxRateId: t.rate.id,
      displayName: `VAT ${specs.get(t.rate.id)!.percentage} %`,
      percentage: specs.get(t.rate.id)!.percentage,
      category: specs.get(t.rate.id)!.category,
      exemptionReason: specs.get(t.rate.id)!.exemptionReason ?? null,
      taxableAmount: Number(t.taxableAmount),
      taxAmount: Number(t.amount),
    })),
    totals: {
      subtotal: Number(breakdown.subtotal),
      totalExcludingTax: Number(breakdown.totalExcludingTax),
      tax: Number(breakdown.tax),
      total,
      prepaid,
      amountDue: total - prepaid,
    },
    note: spec.note ?? null,
    creditedInvoice:
      spec.creditedInvoice ??
      (kind === 'credit_note'
        ? { id: 'inv_test', number: 'INV-000001', issueDate: '2026-11-24' }
        : null),
    creditReason: kind === 'credit_note' ? 'order_change' : null,
  };
}

const ADDRESSES: Record<string, { line1: string; city: string; postalCode: string }> = {
  DE: { line1: 'Hauptstraße 1', city: 'München', postalCode: '80331' },
  FR: { line1: '12 rue de la Paix', city: 'Paris', postalCode: '75002' },
  AT: { line1: 'Stephansplatz 3', city: 'Wien', postalCode: '1010' },
  BE: { line1: 'Rue Neuve 5', city: 'Bruxelles', postalCode: '1000' },
  ES: { line1: 'Calle Mayor 7', city: 'Madrid', postalCode: '28013' },
  NL: { line1: 'Damrak 70', city: 'Amsterdam', postalCode: '1012 LM' },
  DK: { line1: 'Strøget 20', city: 'København', postalCode: '1160' },
  SE: { line1: 'Drottninggatan 9', city: 'Stockholm', postalCode: '111 51' },
  NO: { line1: 'Karl Johans gate 14', city: 'Oslo', postalCode: '0154' },
  IT: { line1: 'Via Montenapoleone 8', city: 'Milano', postalCode: '20121' },
  CH: { line1: 'Bahnhofstrasse 10', city: 'Zürich', postalCode: '8001' },
  US: { line1: '350 Fifth Avenue', city: 'New York', postalCode: '10118' },
  JP: { line1: '1-1 Chiyoda', city: 'Tokyo', postalCode: '100-8111' },
  KW: { line1: 'Gulf Road 1', city: 'Kuwait City', postalCode: '13001' },
};

/** A party in `country` with an address, and whatever `extra` sets (VAT id, address, …). */
export function party(country: string, name: string, extra: Partial<Party> = {}): Party {
  const address = ADDRESSES[country]!;
  return {
    name,
    address: { line2: null, state: null, country, ...address },
    vatId: null,
    taxIds: [],
    companyRegistration: null,
    email: `billing@${name.toLowerCase().replace(/[^a-z]+/g, '')}.example`,
    electronicAddress: null,
    phone: null,
    ...extra,
  };
}
