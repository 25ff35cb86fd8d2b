// The parts of a document model (./model.ts) that invoices and credit notes build alike from
// what they froze: the seller and the buyer, the seller's payment details, the tax breakdown
// and the buyer's reference.
import type { CustomerSnapshot, Invoice, SellerSnapshot } from '../invoices/schemas.ts';
import { defaultElectronicAddress } from './electronic-address.ts';
import type { DocumentModel, Party, TaxBreakdownEntry } from './model.ts';

/** The tax ids that are VAT ids, in the order they identify a buyer (BT-48). */
const VAT_ID_TYPES = ['eu_vat', 'gb_vat', 'ch_vat', 'no_vat'];

/** The buyer's VAT id (BT-48) among its tax ids: the first VAT id in VAT_ID_TYPES order. */
export function buyerVatId(taxIds: readonly { type: string; value: string }[]): string | null {
  const vat = VAT_ID_TYPES.map((type) => taxIds.find((id) => id.type === type)).find(
    (id) => id !== undefined,
  );
  return vat?.value ?? null;
}

function sellerParty(seller: SellerSnapshot): Party {
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

function buyerParty(customer: CustomerSnapshot): Party {
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

/**
 * The seller, the buyer and where the seller is paid, from the parties the document froze;
 * the payment `instructions` as the kind of document prints them.
 */
export function documentParties(
  seller: SellerSnapshot,
  customer: CustomerSnapshot,
  instructions: string | null,
): Pick<DocumentModel, 'seller' | 'buyer' | 'payment'> {
  return {
    seller: sellerParty(seller),
    buyer: buyerParty(customer),
    payment: {
      iban: seller.iban,
      bic: seller.bic,
      accountName: seller.accountName ?? seller.name,
      instructions,
    },
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
