// The hosted page's view: what the templates (./templates/) receive, every value already text
// in the customer's language (./page.ts makes it), and what the page needs of a credit note.
import type { DocumentFormat } from '../documents/service.ts';
import type { DocumentLocale } from '../documents/model.ts';

export const PAGE_STATUSES = [
  'open',
  'partially_paid',
  'overdue',
  'paid',
  'void',
  'uncollectible',
] as const;
export type PageStatus = (typeof PAGE_STATUSES)[number];

export interface Party {
  name: string;
  lines: string[];
}

export interface LineRow {
  description: string;
  /** The period the line bills, as the PDF prints it; null for a line without one. */
  period: string | null;
  quantity: string;
  unit: string;
  unitPrice: string;
  vat: string;
  amount: string;
}

export interface TaxRow {
  category: string;
  reason: string | null;
  rate: string;
  taxable: string;
  tax: string;
}

export interface PaymentRow {
  date: string;
  method: string;
  amount: string;
  voided: boolean;
}

export interface Download {
  href: string;
  label: string;
  /** The media type, for the link's `type`. */
  type: string;
}

/** A credit note of the invoice (not void), with the documents the page offers of it. */
export interface CreditNoteRow {
  number: string;
  date: string;
  amount: string;
  downloads: Download[];
}

/** What the page needs to know of a credit note: the page offers its documents. */
export interface PageCreditNote {
  number: string;
  total: number;
  createdAt: string;
  /** Its documents that exist (the PDF; its e-invoices when its data allow them). */
  formats: ReadonlySet<DocumentFormat>;
}

export interface PageView {
  lang: DocumentLocale;
  title: string;
  heading: string;
  status: { key: PageStatus; label: string };
  seller: Party;
  buyer: Party;
  facts: [string, string][];
  /** Total, paid, credited, remaining: the state of the invoice now. */
  summary: { label: string; value: string; key: string }[];
  lines: LineRow[];
  pricesIncludeTax: string | null;
  taxRows: TaxRow[];
  totals: { label: string; value: string; strong: boolean }[];
  paymentTerms: string | null;
  paymentDetails: [string, string][];
  paymentInstructions: string | null;
  payments: PaymentRow[];
  creditNotes: CreditNoteRow[];
  downloads: Download[];
  note: string | null;
  labels: Record<string, string>;
}
