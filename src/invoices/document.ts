// An invoice as a document model (src/documents/model.ts): everything its PDF and e-invoices
// print, from the invoice as it was frozen at issue (its seller and customer snapshots and tax
// breakdown), or, for a draft's preview, from the seller and customer as they are now.
import { formatDate, resolveLocale, t } from '../documents/i18n.ts';
import type { DocumentModel } from '../documents/model.ts';
import { breakdownEntries, documentParties, givenBuyerReference } from '../documents/parties.ts';
import { lineNetAmounts } from '../taxes/line-nets.ts';
import type { CustomerSnapshot, Invoice, SellerSnapshot } from './schemas.ts';

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
    ...documentParties(seller, customer, seller.paymentInstructions),
    buyerReference: invoice.buyerReference,
    buyerReferenceGiven: givenBuyerReference(invoice),
    purchaseOrder: invoice.purchaseOrder,
    paymentTerms:
      seller.paymentTerms ??
      (invoice.dueDate
        ? t(locale, 'payment.payableBy', { date: formatDate(invoice.dueDate, locale) })
        : null),
    pricesIncludeTax: inclusive,
    lines: invoice.lines.map((l, i) => ({
      id: l.id,
      description: l.description,
      quantity: l.quantityDecimal ?? l.quantity,
      unitCode: l.unitCode,
      unitAmount: l.unitAmount,
      amount: l.amount,
      netAmount: nets[i]!,
      taxRateIds: lineRates[i]!,
      period: l.period && { start: l.period.startDate, end: l.period.endDate },
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
