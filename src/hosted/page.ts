// What the hosted invoice page shows, as text in the customer's language: the invoice as its
// documents print it (seller, buyer, facts, lines, tax breakdown, totals, payment details, from
// the same document model as the PDF) plus what only the page can show, the invoice's state
// now (status, amounts paid and remaining, payments). The templates (./templates/) only lay it
// out; every number and date is formatted here, money exactly from its minor units. The
// view's shape is in ./page-view.ts.
import {
  formatAmount,
  formatDate,
  formatPeriod,
  formatQuantity,
  isMessageId,
  t,
  unitName,
  type MessageId,
} from '../documents/i18n.ts';
import type { DocumentFormat } from '../documents/service.ts';
import type { DocumentLocale, DocumentModel, TaxBreakdownEntry } from '../documents/model.ts';
import {
  addressLines,
  documentFacts,
  identityLines,
  taxIdLines,
} from '../documents/pdf/heading.ts';
import { printedUnitPrice } from '../documents/pdf/lines-table.ts';
import { groupIban } from '../documents/pdf/payment.ts';
import { printedRate } from '../documents/pdf/tax-summary.ts';
import type { Invoice } from '../invoices/schemas.ts';
import type {
  CreditNoteRow,
  LineRow,
  PageCreditNote,
  PageStatus,
  PageView,
  PaymentRow,
} from './page-view.ts';

/**
 * The status the page shows, from the invoice's state now (the PDF, a record of the issue,
 * cannot show it). Overdue comes before partially paid: it is what the customer must act on.
 */
export function pageStatus(
  invoice: Pick<Invoice, 'status' | 'overdue' | 'amountPaid'>,
): PageStatus {
  if (invoice.status === 'paid' || invoice.status === 'void') return invoice.status;
  if (invoice.status === 'uncollectible') return 'uncollectible';
  if (invoice.overdue) return 'overdue';
  return invoice.amountPaid > 0 ? 'partially_paid' : 'open';
}

/** The messages the templates use as they are. */
const LABELS = [
  'hosted.seller',
  'hosted.statusLabel',
  'hosted.lines',
  'hosted.downloads',
  'hosted.payments',
  'hosted.paymentDate',
  'hosted.paymentMethod',
  'hosted.noPayments',
  'hosted.creditNotes',
  'fact.number',
  'hosted.status.void',
  'party.buyer',
  'lines.description',
  'lines.quantity',
  'lines.unitPrice',
  'lines.vatRate',
  'lines.amount',
  'vat.heading',
  'vat.category',
  'vat.rate',
  'vat.taxableAmount',
  'vat.tax',
  'payment.terms',
  'payment.details',
  'note.heading',
] as const satisfies readonly MessageId[];

function lineRows(model: DocumentModel): LineRow[] {
  const { locale, currency } = model;
  const rates = new Map(model.taxBreakdown.map((entry) => [entry.taxRateId, entry]));
  return model.lines.map((line) => {
    const vat = line.taxRateIds
      .map((id) => rates.get(id))
      .filter((entry): entry is TaxBreakdownEntry => entry !== undefined)
      .map((entry) => printedRate(entry, locale))
      .join(' + ');
    return {
      description: line.description,
      period: line.period && formatPeriod(line.period, locale),
      quantity: formatQuantity(line.quantity, locale),
      unit: unitName(line.unitCode, line.quantity, locale),
      unitPrice: printedUnitPrice(line, currency, locale),
      vat: vat || '–',
      amount: formatAmount(line.amount, currency, locale),
    };
  });
}

function paymentDetails(model: DocumentModel): [string, string][] {
  const { locale, payment } = model;
  if (!payment.iban && !payment.bic) return [];
  const rows: [string, string][] = [
    [t(locale, 'payment.accountName'), payment.accountName ?? model.seller.name],
  ];
  if (payment.iban) rows.push([t(locale, 'payment.iban'), groupIban(payment.iban)]);
  if (payment.bic) rows.push([t(locale, 'payment.bic'), payment.bic]);
  // The reference a transfer quotes is the invoice's number, as on the PDF.
  if (model.number) rows.push([t(locale, 'payment.reference'), model.number]);
  return rows;
}

function paymentRows(invoice: Invoice, locale: DocumentLocale): PaymentRow[] {
  return invoice.payments.map((p) => {
    const methodId = `payment.method.${p.method}`;
    return {
      date: formatDate(p.receivedAt.slice(0, 10), locale),
      method: isMessageId(methodId) ? t(locale, methodId) : p.method,
      amount: formatAmount(p.amount, invoice.currency, locale),
      voided: p.status === 'void',
    };
  });
}

const DOWNLOADS: [DocumentFormat, MessageId, string][] = [
  ['pdf', 'hosted.downloadPdf', 'application/pdf'],
  ['ubl', 'hosted.downloadUbl', 'application/xml'],
  ['cii', 'hosted.downloadCii', 'application/xml'],
];

const CREDIT_NOTE_DOWNLOADS: [DocumentFormat, MessageId, string][] = [
  ['pdf', 'hosted.creditNotePdf', 'application/pdf'],
  ['ubl', 'hosted.creditNoteUbl', 'application/xml'],
  ['cii', 'hosted.creditNoteCii', 'application/xml'],
];

/**
 * The invoice's credit notes with links to their documents, under the invoice's own link
 * (`{token}/credit-notes/{number}/{format}`, ./routes.ts): a credit note's e-invoice is offered
 * when the page offers the invoice's e-invoice in that syntax.
 */
function creditNoteRows(
  notes: readonly PageCreditNote[],
  model: DocumentModel,
  options: { formats: ReadonlySet<DocumentFormat>; downloadBase: string },
): CreditNoteRow[] {
  const { locale, currency } = model;
  return notes.map((note) => ({
    number: note.number,
    date: formatDate(note.createdAt.slice(0, 10), locale),
    amount: formatAmount(note.total, currency, locale),
    downloads: CREDIT_NOTE_DOWNLOADS.filter(
      ([format]) => note.formats.has(format) && (format === 'pdf' || options.formats.has(format)),
    ).map(([format, label, type]) => ({
      href: `${options.downloadBase}/credit-notes/${encodeURIComponent(note.number)}/${format}`,
      label: t(locale, label, { number: note.number }),
      type,
    })),
  }));
}

export function pageView(
  invoice: Invoice,
  model: DocumentModel,
  options: {
    formats: ReadonlySet<DocumentFormat>;
    downloadBase: string;
    creditNotes: readonly PageCreditNote[];
  },
): PageView {
  const { locale, currency, totals } = model;
  const money = (amount: number) => formatAmount(amount, currency, locale);
  const status = pageStatus(invoice);
  const summary = [{ key: 'total', label: t(locale, 'totals.total'), value: money(invoice.total) }];
  if (invoice.dueDate) {
    summary.push({
      key: 'due',
      label: t(locale, 'fact.dueDate'),
      value: formatDate(invoice.dueDate, locale),
    });
  }
  summary.push({
    key: 'paid',
    label: t(locale, 'hosted.amountPaid'),
    value: money(invoice.amountPaid),
  });
  if (invoice.amountCredited > 0) {
    summary.push({
      key: 'credited',
      label: t(locale, 'hosted.creditNotes'),
      value: money(invoice.amountCredited),
    });
  }
  summary.push({
    key: 'remaining',
    label: t(locale, 'hosted.amountRemaining'),
    value: money(invoice.amountRemaining),
  });
  return {
    lang: locale,
    title: t(locale, 'hosted.pageTitle', { number: model.number ?? '', seller: model.seller.name }),
    heading: `${t(locale, 'document.invoice')} ${model.number ?? ''}`.trim(),
    status: { key: status, label: t(locale, `hosted.status.${status}`) },
    seller: {
      name: model.seller.name,
      lines: [
        ...addressLines(model.seller.address, locale),
        ...identityLines(model.seller, locale),
      ],
    },
    buyer: {
      name: model.buyer.name,
      lines: [...addressLines(model.buyer.address, locale), ...taxIdLines(model.buyer, locale)],
    },
    facts: documentFacts(model),
    summary,
    lines: lineRows(model),
    pricesIncludeTax: model.pricesIncludeTax ? t(locale, 'lines.pricesIncludeTax') : null,
    taxRows: model.taxBreakdown.map((entry) => ({
      category: t(locale, `vat.category.${entry.category}`),
      reason: entry.exemptionReason,
      rate: printedRate(entry, locale),
      taxable: money(entry.taxableAmount),
      tax: money(entry.taxAmount),
    })),
    totals: [
      {
        label: t(locale, 'totals.excludingTax'),
        value: money(totals.totalExcludingTax),
        strong: false,
      },
      { label: t(locale, 'totals.tax'), value: money(totals.tax), strong: false },
      { label: t(locale, 'totals.total'), value: money(totals.total), strong: true },
    ],
    paymentTerms: model.paymentTerms,
    paymentDetails: paymentDetails(model),
    paymentInstructions: model.payment.instructions,
    payments: paymentRows(invoice, locale),
    creditNotes: creditNoteRows(options.creditNotes, model, options),
    downloads: DOWNLOADS.filter(([format]) => options.formats.has(format)).map(
      ([format, label, type]) => ({
        href: `${options.downloadBase}/${format}`,
        label: t(locale, label),
        type,
      }),
    ),
    note: model.note,
    labels: Object.fromEntries(LABELS.map((id) => [id, t(locale, id)])),
  };
}
