// The invoice as a PDF document: seller and customer with their tax ids, number and dates,
// lines, the tax breakdown per rate, totals excluding and including tax, what was paid and
// credited, and what remains. Money is shown in its currency (money/format.ts).
import PDFDocument from 'pdfkit';
import type { Queryable } from '../db/pool.ts';
import type { Tenant } from '../keys/service.ts';
import { formatMoney } from '../money/format.ts';
import type { TenantScope } from '../tenancy.ts';
import type { CustomerSnapshot, Invoice } from './schemas.ts';

/** A credit note as the invoice PDF lists it (the credit-note module fills the list). */
export interface CreditNoteOnPdf {
  number: string;
  date: string;
  total: number;
  reason: string | null;
}

/**
 * Reads an invoice's credit notes for its PDF. The credit-note module provides it (routes pass
 * it in), so this module need not import the one that builds on it.
 */
export type CreditNotesOfInvoice = (
  db: Queryable,
  scope: TenantScope,
  invoiceId: string,
) => Promise<readonly CreditNoteOnPdf[]>;

export interface InvoicePdfInput {
  invoice: Invoice;
  seller: Tenant;
  /** The frozen snapshot; for a draft, the customer as it is now. */
  customer: CustomerSnapshot;
  creditNotes?: readonly CreditNoteOnPdf[];
}

type Doc = PDFKit.PDFDocument;

const LEFT = 50;
const RIGHT = 545; // A4 is 595 points wide
const COLUMNS = { description: LEFT, quantity: 290, unit: 330, tax: 410, amount: 470 };

function ensureRoom(doc: Doc, height: number): void {
  if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage();
}

function addressLines(address: CustomerSnapshot['address'] | Tenant['address'] | null): string[] {
  if (!address) return [];
  const cityLine = [address.postalCode, address.city, address.state].filter(Boolean).join(' ');
  return [address.line1, address.line2, cityLine, address.country].filter(
    (line): line is string => typeof line === 'string' && line !== '',
  );
}

function writeParties(doc: Doc, input: InvoicePdfInput): void {
  const { invoice, seller, customer } = input;
  const top = doc.y;
  doc
    .font('Helvetica-Bold')
    .fontSize(12)
    .text(seller.legalName ?? seller.name, LEFT, top);
  doc.font('Helvetica').fontSize(9);
  for (const line of addressLines(seller.address)) doc.text(line);
  if (seller.taxId) doc.text(`Tax ID: ${seller.taxId}`);
  if (seller.email) doc.text(seller.email);
  const sellerBottom = doc.y;

  const title = invoice.status === 'draft' ? 'DRAFT INVOICE' : 'INVOICE';
  doc
    .font('Helvetica-Bold')
    .fontSize(18)
    .text(title, 330, top, { width: RIGHT - 330, align: 'right' });
  doc.font('Helvetica').fontSize(9);
  const facts = [
    `Number: ${invoice.number ?? '(assigned when issued)'}`,
    `Issue date: ${invoice.issuedAt?.slice(0, 10) ?? '-'}`,
    `Due date: ${invoice.dueDate ?? (invoice.daysUntilDue !== null ? `${invoice.daysUntilDue} days after issue` : '-')}`,
    `Status: ${invoice.status}`,
  ];
  for (const fact of facts) doc.text(fact, 330, doc.y, { width: RIGHT - 330, align: 'right' });
  doc.y = Math.max(sellerBottom, doc.y) + 20;

  doc.font('Helvetica-Bold').fontSize(10).text('Bill to', LEFT);
  doc.font('Helvetica').fontSize(9);
  if (customer.name) doc.text(customer.name);
  for (const line of addressLines(customer.address)) doc.text(line);
  if (customer.email) doc.text(customer.email);
  for (const taxId of customer.taxIds) doc.text(`Tax ID (${taxId.type}): ${taxId.value}`);
  doc.moveDown(1.5);
}

function rateLabel(t: Invoice['taxAmounts'][number]): string {
  return `${t.displayName} ${t.percentage}%${t.inclusive ? ' incl.' : ''}`;
}

function writeLines(doc: Doc, invoice: Invoice): void {
  const money = (amount: number) => formatMoney(amount, invoice.currency);
  const rates = new Map(invoice.taxAmounts.map((t) => [t.taxRateId, t]));
  const header = (y: number) => {
    doc.font('Helvetica-Bold').fontSize(9);
    doc.text('Description', COLUMNS.description, y);
    doc.text('Qty', COLUMNS.quantity, y, { width: 35, align: 'right' });
    doc.text('Unit price', COLUMNS.unit, y, { width: 75, align: 'right' });
    doc.text('Tax', COLUMNS.tax, y, { width: 55 });
    doc.text('Amount', COLUMNS.amount, y, { width: RIGHT - COLUMNS.amount, align: 'right' });
    doc.font('Helvetica');
    doc.y = y + 14;
  };
  header(doc.y);
  for (const line of invoice.lines) {
    const taxes = (line.taxRates ?? invoice.defaultTaxRates)
      .map((id) => {
        const rate = rates.get(id);
        return rate ? `${rate.displayName} ${rate.percentage}%` : id;
      })
      .join(', ');
    const width = COLUMNS.quantity - COLUMNS.description - 10;
    const height = Math.max(
      doc.heightOfString(line.description, { width }),
      doc.heightOfString(taxes || '-', { width: 55 }),
    );
    ensureRoom(doc, height + 4);
    const y = doc.y;
    doc.text(line.description, COLUMNS.description, y, { width });
    doc.text(String(line.quantity), COLUMNS.quantity, y, { width: 35, align: 'right' });
    doc.text(money(line.unitAmount), COLUMNS.unit, y, { width: 75, align: 'right' });
    doc.text(taxes || '-', COLUMNS.tax, y, { width: 55 });
    doc.text(money(line.amount), COLUMNS.amount, y, {
      width: RIGHT - COLUMNS.amount,
      align: 'right',
    });
    doc.y = y + height + 4;
  }
  doc.moveDown();
}

function writeRow(doc: Doc, label: string, value: string, bold = false): void {
  ensureRoom(doc, 14);
  const y = doc.y;
  doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9);
  doc.text(label, 300, y, { width: 160 });
  doc.text(value, 460, y, { width: RIGHT - 460, align: 'right' });
  doc.font('Helvetica');
  doc.y = y + 14;
}

function writeTaxBreakdown(doc: Doc, invoice: Invoice): void {
  if (invoice.taxAmounts.length === 0) return;
  const money = (amount: number) => formatMoney(amount, invoice.currency);
  ensureRoom(doc, 30);
  doc.font('Helvetica-Bold').fontSize(10).text('Tax breakdown', 300, doc.y);
  doc.moveDown(0.3);
  for (const t of invoice.taxAmounts) {
    writeRow(doc, `${rateLabel(t)} on ${money(t.taxableAmount)}`, money(t.amount));
  }
  doc.moveDown();
}

function writeTotals(doc: Doc, invoice: Invoice): void {
  const money = (amount: number) => formatMoney(amount, invoice.currency);
  writeRow(doc, 'Subtotal', money(invoice.subtotal));
  writeRow(doc, 'Total excluding tax', money(invoice.totalExcludingTax));
  writeRow(doc, 'Tax', money(invoice.tax));
  writeRow(doc, 'Total', money(invoice.total), true);
  writeRow(doc, 'Amount paid', money(invoice.amountPaid));
  writeRow(doc, 'Amount credited', money(invoice.amountCredited));
  writeRow(doc, 'Amount remaining', money(invoice.amountRemaining), true);
  doc.moveDown();
}

/** The credit notes issued against the invoice; nothing is printed for an empty list. */
export function writeCreditNotes(
  doc: Doc,
  currency: string,
  creditNotes: readonly CreditNoteOnPdf[],
): void {
  if (creditNotes.length === 0) return;
  ensureRoom(doc, 30);
  doc.font('Helvetica-Bold').fontSize(10).text('Credit notes', 300, doc.y);
  doc.moveDown(0.3);
  for (const note of creditNotes) {
    const reason = note.reason ? ` (${note.reason.replace(/_/g, ' ')})` : '';
    writeRow(doc, `${note.number}, ${note.date}${reason}`, formatMoney(-note.total, currency));
  }
  doc.moveDown();
}

function writeNotes(doc: Doc, input: InvoicePdfInput): void {
  doc.x = LEFT;
  doc.font('Helvetica').fontSize(9);
  if (input.customer.taxExempt === 'reverse') {
    doc.font('Helvetica-Bold').text('Reverse charge', LEFT, doc.y, { width: RIGHT - LEFT });
    doc
      .font('Helvetica')
      .text('The recipient of the supply is liable for the tax (reverse charge).', {
        width: RIGHT - LEFT,
      });
    doc.moveDown(0.5);
  } else if (input.customer.taxExempt === 'exempt') {
    doc.text('The customer is exempt from tax.', LEFT, doc.y, { width: RIGHT - LEFT });
    doc.moveDown(0.5);
  }
  if (input.invoice.memo) doc.text(input.invoice.memo, LEFT, doc.y, { width: RIGHT - LEFT });
}

export async function renderInvoicePdf(input: InvoicePdfInput): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: LEFT,
    info: { Title: `Invoice ${input.invoice.number ?? input.invoice.id}` },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  writeParties(doc, input);
  writeLines(doc, input.invoice);
  writeTaxBreakdown(doc, input.invoice);
  writeTotals(doc, input.invoice);
  writeCreditNotes(doc, input.invoice.currency, input.creditNotes ?? []);
  writeNotes(doc, input);
  doc.end();
  return done;
}
