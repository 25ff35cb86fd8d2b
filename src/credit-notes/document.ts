// A credit note as a document model (src/documents/model.ts): a correcting document that names
// the invoice it corrects, with its own lines and tax breakdown. The seller is the one frozen
// when the credit note was made; the buyer, the invoice's frozen customer.
//
// EN 16931 gives each line one VAT rate, so a credited line is shown once per rate it was
// credited at (the parts kept with it), and any part not taxed as one more line; a credit of
// an amount is shown as one line per rate of the invoice's breakdown.
import { formatDate, resolveLocale, t } from '../documents/i18n.ts';
import type { DocumentLine, DocumentModel } from '../documents/model.ts';
import { breakdownEntries, documentParties, givenBuyerReference } from '../documents/parties.ts';
import type { CustomerSnapshot, Invoice, SellerSnapshot } from '../invoices/schemas.ts';
import type { CreditNote } from './schemas.ts';
import type { LineTaxPart } from './store.ts';

interface Source {
  id: string;
  description: string;
  net: number;
  parts: readonly LineTaxPart[];
}

/** Document lines for one credited line (or the whole credit): a line per part, then the rest. */
function linesOf(
  source: Source,
  inclusive: boolean,
  label: (taxRateId: string) => string,
): DocumentLine[] {
  const parts = source.parts.filter((p) => p.taxableAmount !== 0 || p.amount !== 0);
  const lines: DocumentLine[] = parts.map((part, i) => {
    const amount = inclusive ? part.taxableAmount + part.amount : part.taxableAmount;
    return {
      id: `${source.id}-${i + 1}`,
      description:
        parts.length > 1 ? `${source.description} (${label(part.taxRateId)})` : source.description,
      quantity: 1,
      unitCode: 'C62',
      unitAmount: amount,
      amount,
      netAmount: part.taxableAmount,
      taxRateIds: [part.taxRateId],
      period: null,
    };
  });
  const untaxed = source.net - parts.reduce((sum, p) => sum + p.taxableAmount, 0);
  if (untaxed !== 0 || lines.length === 0) {
    lines.push({
      id: `${source.id}-${lines.length + 1}`,
      description: source.description,
      quantity: 1,
      unitCode: 'C62',
      unitAmount: untaxed,
      amount: untaxed,
      netAmount: untaxed,
      taxRateIds: [],
      period: null,
    });
  }
  return lines;
}

export function creditNoteDocumentModel(
  note: CreditNote,
  lineParts: ReadonlyMap<string, readonly LineTaxPart[] | null>,
  invoice: Invoice,
  seller: SellerSnapshot,
  customer: CustomerSnapshot,
): DocumentModel {
  const locale = resolveLocale(customer.locale);
  const invoiceDate = invoice.issuedAt!.slice(0, 10);
  const corrects = t(locale, 'credit.corrects', {
    number: invoice.number!,
    date: formatDate(invoiceDate, locale),
  });
  const rates = new Map(note.taxAmounts.map((r) => [r.taxRateId, r]));
  const label = (id: string) => {
    const rate = rates.get(id);
    return rate ? `${rate.displayName} ${rate.percentage}%` : id;
  };
  const wholeParts = note.taxAmounts.map((r) => ({
    taxRateId: r.taxRateId,
    taxableAmount: r.taxableAmount,
    amount: r.amount,
  }));
  // A credited line's parts were kept with it; for lines made before they were, the parts are
  // known only when the invoice has a single rate.
  const partsKnown = note.lines.every((l) => lineParts.get(l.id) || note.taxAmounts.length <= 1);
  const sources: Source[] =
    note.lines.length === 0 || !partsKnown
      ? [{ id: note.id, description: corrects, net: note.totalExcludingTax, parts: wholeParts }]
      : note.lines.map((l) => ({
          id: l.id,
          description: l.description,
          net: l.amountExcludingTax,
          parts:
            lineParts.get(l.id) ??
            wholeParts.map((p) => ({ ...p, taxableAmount: l.amountExcludingTax, amount: l.tax })),
        }));
  const inclusive = invoice.taxAmounts[0]?.inclusive ?? false;
  const lines = sources.flatMap((source) => linesOf(source, inclusive, label));
  return {
    kind: 'credit_note',
    draft: false,
    id: note.id,
    number: note.number,
    issueDate: note.createdAt.slice(0, 10),
    issuedAt: note.createdAt,
    dueDate: null,
    supplyDate: invoice.supplyDate ?? (invoice.servicePeriod ? null : invoiceDate),
    servicePeriod: invoice.servicePeriod,
    currency: note.currency,
    locale,
    ...documentParties(seller, customer, null),
    buyerReference: invoice.buyerReference ?? invoice.customerId,
    buyerReferenceGiven: givenBuyerReference(invoice),
    purchaseOrder: invoice.purchaseOrder,
    // The amount is owed to the buyer: it is set off against the invoice, or refunded.
    paymentTerms: t(locale, 'credit.settlement', { number: invoice.number! }),
    pricesIncludeTax: inclusive,
    lines,
    taxBreakdown: breakdownEntries(note.taxAmounts),
    totals: {
      subtotal: lines.reduce((sum, l) => sum + l.amount, 0),
      totalExcludingTax: note.totalExcludingTax,
      tax: note.tax,
      total: note.total,
      prepaid: 0,
      amountDue: note.total,
    },
    note: note.memo,
    creditedInvoice: { id: invoice.id, number: invoice.number!, issueDate: invoiceDate },
    creditReason: note.reason,
  };
}
