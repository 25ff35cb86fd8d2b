// The EN 16931 semantic invoice: every business term (BT-…) the API can fill, derived once
// from the document model, as the text the XML carries. ubl.ts and cii.ts are two syntax
// bindings of this one derivation, so the two formats cannot disagree on a value.
// It assumes complete data (completeness.ts says when that holds).
import type {
  DocumentModel,
  ElectronicAddress,
  Party,
  PostalAddress,
  VatCategory,
} from '../model.ts';
import { t } from '../i18n.ts';
import { amountText, linePricing, type LinePricing } from './amounts.ts';
import { isSepaIban } from './codes.ts';
import { legalRegistration, type LegalRegistration } from './identifiers.ts';
import { vatBreakdown } from './vat.ts';

/** Text with its surrounding white space removed, or null when nothing is left. */
export function clean(text: string | null | undefined): string | null {
  const trimmed = text?.trim();
  return trimmed ? trimmed : null;
}

export interface SemanticAddress {
  line1: string | null;
  line2: string | null;
  city: string | null;
  postalCode: string | null;
  state: string | null;
  country: string;
}

export interface SemanticParty {
  name: string;
  electronicAddress: ElectronicAddress | null;
  /** BT-30 (seller only). */
  legalRegistration: LegalRegistration | null;
  /** BT-31 / BT-48; left out on documents not subject to VAT (BR-O-02). */
  vatId: string | null;
  address: SemanticAddress;
  /** BT-43 / BT-58. */
  email: string | null;
  /** BT-42, seller only. */
  phone: string | null;
  /**
   * BT-41, the seller's contact point: its name, written with its e-mail (German domestic
   * e-invoices require a named contact, DE-R-005). The buyer's contact is its e-mail alone.
   */
  contactName: string | null;
}

export interface SemanticLine {
  id: string;
  name: string;
  unitCode: string;
  pricing: LinePricing;
  netAmount: string;
  category: VatCategory;
  /** BT-152; null for O (BR-O-05). */
  percent: string | null;
  /** BG-26: BT-134 and BT-135, calendar dates, both inclusive. */
  period: { start: string; end: string } | null;
  /** BG-28 (a charge) or BG-27 (an allowance): see LinePricing.lineCharge. */
  charge: SemanticLineCharge | null;
}

export interface SemanticLineCharge {
  /** true: a charge (BG-28); false: an allowance (BG-27). */
  isCharge: boolean;
  /** BT-141 / BT-136, never negative. */
  amount: string;
  /** BT-144 / BT-139, in the document's language. */
  reason: string;
}

export interface SemanticVatGroup {
  category: VatCategory;
  percent: string;
  taxableAmount: string;
  taxAmount: string;
  exemptionReason: string | null;
  exemptionReasonCode: string | null;
}

export interface SemanticInvoice {
  kind: DocumentModel['kind'];
  typeCode: '380' | '381';
  number: string;
  issueDate: string;
  /** ISO 4217, upper case. */
  currency: string;
  dueDate: string | null;
  note: string | null;
  buyerReference: string | null;
  purchaseOrder: string | null;
  /** BG-3. */
  precedingInvoice: { number: string; issueDate: string } | null;
  seller: SemanticParty;
  buyer: SemanticParty;
  /** BT-72, or BG-14. */
  supplyDate: string | null;
  servicePeriod: { start: string; end: string } | null;
  /** BG-15: the buyer's address, written only for intra-community supplies (BR-IC-12). */
  deliverTo: SemanticAddress | null;
  /** BG-16 with BG-17; null without an account. */
  payment: {
    meansCode: '58' | '30';
    reference: string;
    iban: string;
    accountName: string | null;
    bic: string | null;
  } | null;
  paymentTerms: string | null;
  lines: SemanticLine[];
  vat: SemanticVatGroup[];
  totals: {
    lineNet: string;
    taxExclusive: string;
    tax: string;
    taxInclusive: string;
    prepaid: string | null;
    payable: string;
  };
}

function semanticAddress(address: PostalAddress | null): SemanticAddress {
  return {
    line1: clean(address?.line1),
    line2: clean(address?.line2),
    city: clean(address?.city),
    postalCode: clean(address?.postalCode),
    state: clean(address?.state),
    country: clean(address?.country) ?? '',
  };
}

function semanticParty(party: Party, withVat: boolean, seller: boolean): SemanticParty {
  const address = semanticAddress(party.address);
  return {
    name: party.name.trim(),
    electronicAddress: party.electronicAddress && {
      scheme: party.electronicAddress.scheme.trim(),
      value: party.electronicAddress.value.trim(),
    },
    legalRegistration: seller
      ? legalRegistration(party.companyRegistration, address.country)
      : null,
    vatId: withVat ? clean(party.vatId) : null,
    address,
    email: clean(party.email),
    phone: seller ? clean(party.phone) : null,
    contactName: seller ? clean(party.name) : null,
  };
}

export function toSemanticInvoice(model: DocumentModel): SemanticInvoice {
  const currency = model.currency;
  const amount = (value: number) => amountText(value, currency);
  const { groups, lineGroups } = vatBreakdown(model);
  const outsideScope = groups.some((g) => g.category === 'O');
  const iban = clean(model.payment.iban)?.replace(/\s+/g, '');
  const credited = model.creditedInvoice;
  return {
    kind: model.kind,
    typeCode: model.kind === 'invoice' ? '380' : '381',
    number: model.number!.trim(),
    issueDate: model.issueDate,
    currency: currency.toUpperCase(),
    dueDate: model.dueDate,
    note: clean(model.note),
    buyerReference: clean(model.buyerReference),
    purchaseOrder: clean(model.purchaseOrder),
    precedingInvoice: credited ? { number: credited.number, issueDate: credited.issueDate } : null,
    seller: semanticParty(model.seller, !outsideScope, true),
    buyer: semanticParty(model.buyer, !outsideScope, false),
    supplyDate: model.supplyDate,
    servicePeriod: model.servicePeriod,
    deliverTo: groups.some((g) => g.category === 'K') ? semanticAddress(model.buyer.address) : null,
    payment: iban
      ? {
          meansCode: isSepaIban(iban) ? '58' : '30',
          reference: model.number!.trim(),
          iban,
          accountName: clean(model.payment.accountName) ?? model.seller.name.trim(),
          bic: clean(model.payment.bic),
        }
      : null,
    paymentTerms: clean(model.paymentTerms),
    lines: model.lines.map((line, index) => {
      const group = lineGroups[index]!;
      const pricing = linePricing(line, currency, model.pricesIncludeTax);
      const charge = pricing.lineCharge;
      return {
        id: String(index + 1),
        name: line.description.trim(),
        unitCode: line.unitCode,
        pricing,
        netAmount: amount(line.netAmount),
        category: group.category,
        percent: group.category === 'O' ? null : group.percent,
        period: line.period,
        charge:
          charge === null
            ? null
            : {
                isCharge: charge > 0,
                amount: amount(Math.abs(charge)),
                reason: t(model.locale, 'lines.flatFee'),
              },
      };
    }),
    vat: groups.map((g) => ({
      category: g.category,
      percent: g.percent,
      taxableAmount: amount(g.taxableAmount),
      taxAmount: amount(g.taxAmount),
      exemptionReason: g.exemptionReason,
      exemptionReasonCode: g.exemptionReasonCode,
    })),
    totals: {
      lineNet: amount(model.totals.totalExcludingTax),
      taxExclusive: amount(model.totals.totalExcludingTax),
      tax: amount(model.totals.tax),
      taxInclusive: amount(model.totals.total),
      prepaid: model.totals.prepaid !== 0 ? amount(model.totals.prepaid) : null,
      payable: amount(model.totals.amountDue),
    },
  };
}
