// A draft's lines: the rows made from a request's lines, the rates they name, adding and
// removing one line. Every change to a draft reprices it and stores it (saveDraft), which the
// draft's own edit in service.ts does too.
import { utcDateOf, type Clock } from '../clock.ts';
import type { Db, Tx } from '../db/pool.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { getCustomerRow } from '../customers/service.ts';
import { ParameterInvalidError, ResourceMissingError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { TenantScope } from '../tenancy.ts';
import { withReadiness } from './einvoice-readiness.ts';
import { checkedLineAmount, priceWithRates } from './pricing.ts';
import { MAX_LINES, type LineCreate } from './draft-schemas.ts';
import type { Invoice } from './schemas.ts';
import { invoiceFromRow, lockInvoiceFor } from './model.ts';
import { updateDraft } from './draft-store.ts';
import { deleteLine, insertLines, selectLines, type LineRow } from './lines-store.ts';
import type { DraftFields, InvoiceRow } from './store.ts';

export function newLines(
  inputs: readonly LineCreate[],
  firstPosition: number,
  /** The prefix of the fields' names in errors: `lines.3.` on an invoice, '' for one line. */
  param: (index: number) => string,
): Omit<LineRow, 'invoice_id'>[] {
  return inputs.map((input, i) => {
    const quantity = input.quantity ?? 1;
    return {
      id: newId('il'),
      position: firstPosition + i,
      description: input.description,
      quantity,
      unit_amount: input.unitAmount,
      unit_code: input.unitCode ?? 'C62',
      amount: checkedLineAmount(quantity, input.unitAmount, `${param(i)}unitAmount`),
      tax_rates: input.taxRates ?? null,
    };
  });
}

export function rateIdsOf(
  defaults: readonly string[],
  lines: readonly Pick<LineRow, 'tax_rates'>[],
) {
  return new Set([...defaults, ...lines.flatMap((l) => l.tax_rates ?? [])]);
}

/**
 * Prices a draft with its current lines, rates and customer, and stores it. Rates in
 * `newlyUsed` must be active; `param` is blamed for a mix of inclusive and exclusive rates.
 */
export async function saveDraft(
  tx: Tx,
  scope: TenantScope,
  row: InvoiceRow,
  fields: DraftFields,
  lines: readonly LineRow[],
  change: { newlyUsed: ReadonlySet<string>; param: string },
  now: Date,
): Promise<Invoice> {
  const customer = await getCustomerRow(tx, scope, row.customer_id);
  const totals = await priceWithRates(
    tx,
    scope,
    fields.default_tax_rates,
    lines,
    customer.tax_exempt,
    change,
  );
  const saved = await updateDraft(tx, scope, row.id, fields, totals);
  return withReadiness(tx, scope, invoiceFromRow(saved, lines, utcDateOf(now)), now, customer);
}

function draftFields(row: InvoiceRow): DraftFields {
  return {
    default_tax_rates: row.default_tax_rates,
    due_date: row.due_date,
    days_until_due: row.days_until_due,
    memo: row.memo,
    metadata: row.metadata,
    supply_date: row.supply_date,
    service_period_start: row.service_period_start,
    service_period_end: row.service_period_end,
    buyer_reference: row.buyer_reference,
    purchase_order: row.purchase_order,
  };
}

/**
 * A change of a draft's lines in one unit of work: the invoice locked (the lock serialises line
 * changes) and allowed an edit; `change` changes its lines and says which rates they newly use
 * and which field is blamed for a mix; the draft is repriced and stored; invoice.updated.
 */
function changeLines(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
  change: (
    tx: Tx,
    scope: TenantScope,
    row: InvoiceRow,
  ) => Promise<{ lines: LineRow[]; newlyUsed: ReadonlySet<string>; param: string }>,
): Promise<Written<Invoice>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await lockInvoiceFor(tx, scope, id, 'edit');
    const { lines, ...repricing } = await change(tx, scope, row);
    const invoice = await saveDraft(
      tx,
      scope,
      row,
      draftFields(row),
      lines,
      repricing,
      clock.now(),
    );
    uow.event('invoice.updated', invoice);
    return invoice;
  });
}

export function addInvoiceLine(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
  input: LineCreate,
): Promise<Written<Invoice>> {
  return changeLines(db, clock, request, id, async (tx, scope, row) => {
    // The invoice row lock serialises line changes, so the count below stays true.
    const lines = await selectLines(tx, scope, [id]);
    if (lines.length >= MAX_LINES) {
      throw new ParameterInvalidError('lines', `An invoice has at most ${MAX_LINES} lines.`);
    }
    const position = Math.max(0, ...lines.map((l) => l.position)) + 1;
    const [line] = newLines([input], position, () => '');
    await insertLines(tx, scope, id, [line!]);
    const before = rateIdsOf(row.default_tax_rates, lines);
    return {
      lines: [...lines, { ...line!, invoice_id: id }],
      newlyUsed: new Set((input.taxRates ?? []).filter((r) => !before.has(r))),
      param: 'taxRates',
    };
  });
}

export function removeInvoiceLine(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
  lineId: string,
): Promise<Written<Invoice>> {
  return changeLines(db, clock, request, id, async (tx, scope) => {
    if (!(await deleteLine(tx, scope, id, lineId))) {
      throw new ResourceMissingError('invoice line', lineId);
    }
    return { lines: await selectLines(tx, scope, [id]), newlyUsed: new Set(), param: 'lines' };
  });
}
