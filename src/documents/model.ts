// An issued document as the renderers see it: everything that is printed on the PDF or written
// into the e-invoice, frozen, with nothing left to look up. The invoice and credit-note modules
// build it from their rows (the seller and buyer as they were at issue); the renderers
// (pdf/, einvoice/) are pure functions of it, so the same model always gives the same bytes.
//
// Amounts are integers in the currency's minor unit (ISO 4217 exponent: eur 2, jpy 0, kwd 3).
// Percentages are exact decimal text ("19", "8.875"), never binary floating point.

/** EN 16931 VAT category codes (UNCL5305 subset used by EN 16931, BT-118 / BT-151). */
export const VAT_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M'] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

/** Languages with a message catalogue (BCP 47 primary subtags). */
export const LOCALES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pl'] as const;
export type DocumentLocale = (typeof LOCALES)[number];

export interface PostalAddress {
  line1: string | null;
  line2: string | null;
  city: string | null;
  /** Region or state (BT-39 / BT-54). */
  state: string | null;
  postalCode: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string | null;
}

/** A Peppol electronic address (EAS code and value), e.g. { scheme: '9930', value: 'DE123…' }. */
export interface ElectronicAddress {
  scheme: string;
  value: string;
}

export interface TaxIdentifier {
  /** `eu_vat`, `gb_vat`, `us_ein`, … as the API names them. */
  type: string;
  value: string;
}

export interface Party {
  /** Legal name (seller: the tenant's legal name, else its name; buyer: the customer's name). */
  name: string;
  address: PostalAddress | null;
  /** The VAT identifier (BT-31 / BT-48), with its country prefix (DE123456789), or null. */
  vatId: string | null;
  /** Every tax id, as printed on the PDF (the VAT id among them). */
  taxIds: TaxIdentifier[];
  /** Seller only: commercial register entry (BT-30 / BT-33), e.g. "HRB 12345, AG München". */
  companyRegistration: string | null;
  email: string | null;
  /** Seller only: contact telephone (BT-42). */
  phone: string | null;
  /** BT-34 / BT-49; null when neither given nor derivable. */
  electronicAddress: ElectronicAddress | null;
}

export interface PaymentDetails {
  /** Credit transfer account (BT-84), no spaces. */
  iban: string | null;
  /** BT-86. */
  bic: string | null;
  /** Name of the account holder (BT-85); defaults to the seller's name. */
  accountName: string | null;
  /** Free text printed under the payment details (e.g. "Please quote the invoice number"). */
  instructions: string | null;
}

/** One rate of the tax breakdown (EN 16931 BG-23), as frozen at issue. */
export interface TaxBreakdownEntry {
  taxRateId: string;
  displayName: string;
  percentage: string;
  category: VatCategory;
  /** Legal text for E, AE, K, G, O (BT-120); null otherwise. */
  exemptionReason: string | null;
  /** Excluding tax: Σ of the net amounts of the lines in this rate (BT-116). */
  taxableAmount: number;
  /** Rounded once per rate (BT-117). Reverse charge, exempt and the like: 0. */
  taxAmount: number;
}

export interface DocumentLine {
  id: string;
  description: string;
  /**
   * The exact quantity, ≥ 0 on invoices: whole units, or the shortest decimal text ("12.5", up
   * to 12 places) of a metered quantity that is not whole. Never rounded for printing.
   */
  quantity: number | string;
  /** UN/ECE Recommendation 20 code, default C62 ("one"). */
  unitCode: string;
  /**
   * As entered: including tax when `pricesIncludeTax`, else excluding it. May be negative.
   * null on a line whose amount follows its price's scheme (tiers, packages, proration).
   */
  unitAmount: number | null;
  /** quantity × unitAmount (or the price's amount), as entered (gross when prices include tax). */
  amount: number;
  /**
   * The line's amount excluding tax (BT-131). Equal to `amount` for exclusive prices; for
   * inclusive ones the line's exact share of its rate's taxableAmount, so that the lines of a
   * rate add up to the breakdown exactly.
   */
  netAmount: number;
  /** Ids of the breakdown entries (taxRateId) that apply to this line; [] for no tax. */
  taxRateIds: string[];
  /**
   * The period the line bills (BG-26) as calendar dates, YYYY-MM-DD, the end inclusive: fixed
   * when the line was made, in its subscription's time zone, so no zone is read at rendering.
   */
  period: { start: string; end: string } | null;
}

export interface DocumentTotals {
  /** Σ line amounts as entered. */
  subtotal: number;
  /** Σ line net amounts (BT-106 / BT-109). */
  totalExcludingTax: number;
  /** BT-110. */
  tax: number;
  /** BT-112. */
  total: number;
  /** Paid before the document was issued (BT-113); 0 for nearly every document. */
  prepaid: number;
  /** BT-115: total − prepaid. */
  amountDue: number;
}

export interface DocumentModel {
  kind: 'invoice' | 'credit_note';
  /** A draft's preview: marked as such on every page; never stored, never an e-invoice. */
  draft: boolean;
  /** The API object's id (inv_… / cn_…). */
  id: string;
  /** INV-000001 / CN-000001; null only on a draft. */
  number: string | null;
  /** YYYY-MM-DD (BT-2). */
  issueDate: string;
  /** The moment of issue, ISO 8601 UTC: the PDF's creation date (keeps the bytes stable). */
  issuedAt: string;
  /** YYYY-MM-DD (BT-9), invoices only. */
  dueDate: string | null;
  /** Date of supply (BT-72), or the service period (BG-14); one of the two is set. */
  supplyDate: string | null;
  servicePeriod: { start: string; end: string } | null;
  /** ISO 4217, lower case (as the API writes it). */
  currency: string;
  locale: DocumentLocale;
  seller: Party;
  buyer: Party;
  /** BT-10; defaults (set by the builder) to the customer's buyer reference, else its id. */
  buyerReference: string | null;
  /**
   * The buyer reference as the buyer gave it (on the invoice or the customer); null when
   * `buyerReference` is only the fallback, the customer's id. What the PDF and the hosted page
   * print as "Your reference": no internal id is printed as something the buyer gave.
   */
  buyerReferenceGiven: string | null;
  /** BT-13. */
  purchaseOrder: string | null;
  /** BT-20, in the document's language, e.g. "Payable within 14 days, by 2026-12-08." */
  paymentTerms: string | null;
  payment: PaymentDetails;
  pricesIncludeTax: boolean;
  lines: DocumentLine[];
  taxBreakdown: TaxBreakdownEntry[];
  totals: DocumentTotals;
  /** Free text (BT-22): the invoice's memo. */
  note: string | null;
  /** Credit notes only: the invoice corrected (BG-3) and the reason. */
  creditedInvoice: { id: string; number: string; issueDate: string } | null;
  creditReason: 'duplicate' | 'fraudulent' | 'order_change' | 'product_unsatisfactory' | null;
}
