// An invoice as a document model (src/documents/model.ts): everything its PDF and e-invoices
// print, from the invoice as it was frozen at issue (its seller and customer snapshots and tax
// breakdown), or, for a draft's preview, from the seller and customer as they are now.
import { formatDate, resolveLocale, t } from '../documents/i18n.ts';
import { defaultElectronicAddress } from '../documents/electronic-address.ts';
import type { DocumentModel, Party, TaxBreakdownEntry } from '../documents/model.ts';
import { lineNetAmounts } from '../taxes/line-nets.ts';
import type { CustomerSnapshot, Invoice, SellerSnapshot } from './schemas.ts';

/** The tax ids that are VAT ids, in the order they identify a buyer (BT-48). */
const VAT_ID_TYPES = ['eu_vat', 'gb_vat', 'ch_vat', 'no_vat'];

/** The buyer's VAT id (BT-48) among its tax ids: the first VAT id in VAT_ID_TYPES order. */
export function buyerVatId(taxIds: readonly { type: string; value: string }[]): string | null {
  const vat = VAT_ID_TYPES.map((type) => taxIds.find((id) => id.type === type)).find(
    (id) => id !== undefined,
  );
  return vat?.value ?? null;
}

export function sellerParty(seller: SellerSnapshot): Party {
  return {
    name: seller.name,
    address: seller.address,
    vatId: seller.taxId,
    taxIds: seller.taxId ? [{ type: 'eu_vat', value: seller.taxId }] : [],
    companyRegistration: seller.companyRegistration,
    email: seller.email,
    phone: seller.phone,
    electronicAddress:
      seller.electronicAddress ?? defaultElectronicAddress(seller.taxId, seller.email),
  };
}

export function buyerParty(customer: CustomerSnapshot): Party {
  return {
    name: customer.name ?? '',
    address: customer.address,
    vatId: buyerVatId(customer.taxIds),
    taxIds: customer.taxIds,
    companyRegistration: null,
    email: customer.email,
    phone: null,
    electronicAddress: customer.electronicAddress,
  };
}

export function breakdownEntries(taxAmounts: Invoice['taxAmounts']): TaxBreakdownEntry[] {
  return taxAmounts.map((t) => ({
    taxRateId: t.taxRateId,
    displayName: t.displayName,
    // The JSON number of a percentage prints as its exact decimal (taxes/percentage.ts).
    percentage: String(t.percentage),
    category: t.category,
    exemptionReason: t.exemptionReason,
    taxableAmount: t.taxableAmount,
    taxAmount: t.amount,
  }));
}

/**
 * The invoice's buyer reference when the buyer gave one: at issue an invoice without one takes
 * the customer's id (the e-invoice needs BT-10 or an order reference), which is no reference of
 * the buyer's and is never printed.
 */
export function givenBuyerReference(
  invoice: Pick<Invoice, 'buyerReference' | 'customerId'>,
): string | null {
  const reference = invoice.buyerReference;
  return reference && reference !== invoice.customerId ? reference : null;
}

function previewTimeMissing(): never {
  throw new Error("A draft invoice's document model needs the time it is previewed at.");
}

export function invoiceDocumentModel(
  invoice: Invoice,
  seller: SellerSnapshot,
  customer: CustomerSnapshot,
  options: { draft: boolean; now?: Date },
): DocumentModel {
  // An issued invoice's dates are frozen; only a draft's preview is dated by the caller's now.
  const issuedAt = invoice.issuedAt ?? (options.now ?? previewTimeMissing()).toISOString();
  const locale = resolveLocale(customer.locale);
  const inclusive = invoice.taxAmounts[0]?.inclusive ?? false;
  const rated = new Set(invoice.taxAmounts.map((t) => t.taxRateId));
  const lineRates = invoice.lines.map((l) =>
    (l.taxRates ?? invoice.defaultTaxRates).filter((id) => rated.has(id)),
  );
  const nets = lineNetAmounts(
    invoice.lines.map((l, i) => ({ amount: l.amount, taxRateIds: lineRates[i]! })),
    invoice.taxAmounts,
    inclusive,
  );
  return {
    kind: 'invoice',
    draft: options.draft,
    id: invoice.id,
    number: invoice.number,
    issueDate: issuedAt.slice(0, 10),
    issuedAt,
    dueDate: invoice.dueDate,
    supplyDate: invoice.supplyDate,
    servicePeriod: invoice.servicePeriod,
    currency: invoice.currency,
    locale,
    seller: sellerParty(seller),
    buyer: buyerParty(customer),
    buyerReference: invoice.buyerReference,
    buyerReferenceGiven: givenBuyerReference(invoice),
    purchaseOrder: invoice.purchaseOrder,
    paymentTerms:
      seller.paymentTerms ??
      (invoice.dueDate
        ? t(locale, 'payment.payableBy', { date: formatDate(invoice.dueDate, locale) })
        : null),
    payment: {
      iban: seller.iban,
      bic: seller.bic,
      accountName: seller.accountName ?? seller.name,
      instructions: seller.paymentInstructions,
    },
    pricesIncludeTax: inclusive,
    lines: invoice.lines.map((l, i) => ({
      id: l.id,
      description: l.description,
      quantity: l.quantity,
      unitCode: l.unitCode,
      unitAmount: l.unitAmount,
      amount: l.amount,
      netAmount: nets[i]!,
      taxRateIds: lineRates[i]!,
    })),
    taxBreakdown: breakdownEntries(invoice.taxAmounts),
    totals: {
      subtotal: invoice.subtotal,
      totalExcludingTax: invoice.totalExcludingTax,
      tax: invoice.tax,
      total: invoice.total,
      // A document is a record of the invoice at issue: nothing was paid before it.
      prepaid: 0,
      amountDue: invoice.total,
    },
    note: invoice.memo,
    creditedInvoice: null,
    creditReason: null,
  };
}
