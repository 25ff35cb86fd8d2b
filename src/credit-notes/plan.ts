// What a credit note credits, worked out before anything is written: its tax breakdown (a
// part of the invoice's frozen one) and its lines, each checked against what remains
// creditable. No database here: the service reads the invoice and its earlier credit notes
// under the invoice's lock and passes them in.
//
// Every amount is gross (tax included), like the invoice total that caps them:
//   `amount`, and a line without invoiceLineId: split over the invoice's whole remaining
//     breakdown (allocateCredit);
//   a line with invoiceLineId: split over that invoice line's own rates (allocateLineCredit),
//     at most what the line was charged less what earlier credit notes credited against it.
// The lines of one credit note are taken in order, each from what the ones before it left.
import { ParameterInvalidError, ParameterMissingError, ResourceMissingError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Invoice } from '../invoices/schemas.ts';
import {
  allocateCredit,
  allocateLineCredit,
  combineAllocations,
  creditableTotal,
  lineCreditable,
  lineGross,
  remainingCreditable,
  type CreditAllocation,
  type Creditable,
  type LineForCredit,
} from '../taxes/service.ts';
import type { CreditNoteCreate } from './schemas.ts';
import type { CreditNoteLineRow } from './store.ts';

export interface CreditPlan {
  allocation: CreditAllocation;
  lines: Omit<CreditNoteLineRow, 'credit_note_id'>[];
  /** With `cap`: the lines cut to what was left, as [index, asked, credited]. */
  capped: [number, number, number][];
}

export interface PriorCredits {
  /** The breakdowns of the invoice's issued credit notes. */
  allocations: readonly Pick<CreditAllocation, 'totalExcludingTax' | 'taxAmounts'>[];
  /** Gross credited so far against each invoice line (by its id). */
  byInvoiceLine: ReadonlyMap<string, number>;
}

/** The invoice's frozen breakdown, as allocation.ts reads it. */
export function breakdownOf(invoice: Invoice): Creditable {
  return { totalExcludingTax: invoice.totalExcludingTax, taxAmounts: invoice.taxAmounts };
}

/** True when the invoice's amounts include the tax (all its rates are inclusive). */
export function isTaxInclusive(invoice: Invoice): boolean {
  return invoice.taxAmounts[0]?.inclusive ?? false;
}

function lineForCredit(invoice: Invoice, line: Invoice['lines'][number]): LineForCredit {
  const ids = line.taxRates ?? invoice.defaultTaxRates;
  return {
    amount: line.amount,
    rates: invoice.taxAmounts.filter((t) => ids.includes(t.taxRateId)),
    inclusive: isTaxInclusive(invoice),
    charged: (invoice.customer?.taxExempt ?? 'none') === 'none',
  };
}

function tooMuch(param: string, what: string, left: number): never {
  throw new ParameterInvalidError(
    param,
    `A credit must be at most what ${what} has left to credit, ${left} (gross, tax included).`,
  );
}

/** A line's gross amount (tax included) for a net amount on an invoice line's rates. */
export function grossOnLine(invoice: Invoice, invoiceLineId: string, net: number): number {
  const line = invoice.lines.find((l) => l.id === invoiceLineId)!;
  return lineGross({ ...lineForCredit(invoice, line), amount: net });
}

/**
 * What a credit note of `input` credits. A line (or amount) beyond what is left to credit is
 * refused — or, with `cap` (a subscription's credit, which must not fail), cut to what is left.
 */
export function planCredit(
  invoice: Invoice,
  prior: PriorCredits,
  input: Pick<CreditNoteCreate, 'amount' | 'lines'>,
  cap = false,
): CreditPlan {
  if (input.amount !== undefined && input.lines !== undefined) {
    throw new ParameterInvalidError('lines', 'Give amount or lines, not both.');
  }
  const rateIds = invoice.taxAmounts.map((t) => t.taxRateId);
  let remaining = remainingCreditable(breakdownOf(invoice), prior.allocations);
  if (input.lines === undefined) {
    if (input.amount === undefined) {
      throw new ParameterMissingError('amount', 'Give amount (gross, tax included) or lines.');
    }
    const left = creditableTotal(remaining);
    if (input.amount > left) tooMuch('amount', 'the invoice', left);
    return { allocation: allocateCredit(input.amount, remaining), lines: [], capped: [] };
  }

  const creditedOnLine = new Map(prior.byInvoiceLine);
  const allocations: CreditAllocation[] = [];
  const capped: CreditPlan['capped'] = [];
  const within = (i: number, asked: number, left: number, param: string, what: string) => {
    if (asked <= left) return asked;
    if (!cap) tooMuch(param, what, left);
    capped.push([i, asked, left]);
    return left;
  };
  const lines = input.lines.map((line, i): CreditPlan['lines'][number] => {
    const param = `lines.${i}`;
    let allocation: CreditAllocation;
    let amount: number;
    if (line.invoiceLineId === undefined) {
      const left = creditableTotal(remaining);
      amount = within(i, line.amount, left, `${param}.amount`, 'the invoice');
      allocation = allocateCredit(amount, remaining);
    } else {
      const invoiceLine = invoice.lines.find((l) => l.id === line.invoiceLineId);
      if (!invoiceLine) {
        throw new ResourceMissingError(
          'invoice line',
          line.invoiceLineId,
          `${param}.invoiceLineId`,
        );
      }
      const target = lineForCredit(invoice, invoiceLine);
      const credited = creditedOnLine.get(invoiceLine.id) ?? 0;
      const left = Math.max(
        0,
        Math.min(lineGross(target) - credited, lineCreditable(target, remaining)),
      );
      amount = within(i, line.amount, left, `${param}.amount`, `invoice line ${invoiceLine.id}`);
      creditedOnLine.set(invoiceLine.id, credited + amount);
      allocation = allocateLineCredit(amount, target, remaining);
    }
    remaining = remainingCreditable(remaining, [allocation]);
    allocations.push(allocation);
    return {
      id: newId('cnl'),
      position: i + 1,
      invoice_line_id: line.invoiceLineId ?? null,
      description: line.description,
      amount,
      amount_excluding_tax: allocation.totalExcludingTax,
      tax: allocation.tax,
      tax_amounts: allocation.taxAmounts.map((t) => ({
        taxRateId: t.taxRateId,
        taxableAmount: t.taxableAmount,
        amount: t.amount,
      })),
    };
  });
  return { allocation: combineAllocations(allocations, rateIds), lines, capped };
}
