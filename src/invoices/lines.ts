// A draft's lines: the rows made from a request's lines, the rates they name, adding and
// removing lines. Every change to a draft reprices it and stores it (saveDraft), which the
// draft's own edit in service.ts and the subscriptions' lines (subscription-drafts.ts) do too.
import { utcDateOf, type Clock } from '../clock.ts';
import type { Db, Tx } from '../db/pool.ts';
import {
  unitOfWork,
  type UnitOfWork,
  type WriteRequest,
  type Written,
} from '../db/unit-of-work.ts';
import { getCustomerRow } from '../customers/service.ts';
import { ParameterInvalidError, ResourceMissingError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { TenantScope } from '../tenancy.ts';
import { withReadiness } from './einvoice-readiness.ts';
import { checkedLineAmount, priceInvoice, priceWithRates, ratesForInvoice } from './pricing.ts';
import { MAX_LINES, type LineCreate } from './draft-schemas.ts';
import type { Invoice } from './schemas.ts';
import { invoiceFromRow, lockInvoiceFor } from './model.ts';
import { insertDraft, updateDraft } from './draft-store.ts';
import { deleteLine, insertLines, selectLines, type LineRow } from './lines-store.ts';
import { customerOf, settingsOf, type SharedReads } from './shared-reads.ts';
import type { DraftFields, InvoiceRow } from './store.ts';

/** What a line added through the API has none of: it is priced by its unitAmount alone. */
const UNPRICED = {
  quantity_decimal: null,
  price_id: null,
  subscription_item_id: null,
  period_start: null,
  period_end: null,
  period_start_date: null,
  period_end_date: null,
} as const;

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
      ...UNPRICED,
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

/**
 * Inserts a new draft with its lines, priced with the rates it names and its customer's tax
 * exemption (the customer must exist: 404 customerId); invoice.created. Rates in `newlyUsed`
 * must be active; `param` is blamed for a mix of inclusive and exclusive rates. `draft.id`: the
 * id its maker chose (a subscription's ledger names it first), else a new one; `reads`: what
 * the caller read for many drafts at once.
 */
export async function insertNewDraft(
  uow: UnitOfWork,
  draft: Pick<InvoiceRow, 'customer_id' | 'currency' | 'subscription_id' | 'billing_reason'> & {
    id?: string;
  },
  fields: DraftFields,
  lines: readonly Omit<LineRow, 'invoice_id'>[],
  change: { newlyUsed: ReadonlySet<string>; param: string },
  now: Date,
  reads?: SharedReads,
): Promise<Invoice> {
  const { tx, actor: scope } = uow;
  // Three reads sent at once, one round trip (the pool pipelines; a refusal is the first
  // read's to fail): the customer, which matters to the price by its tax exemption and must
  // exist (404 customerId); the rates the draft names; the settings its readiness needs.
  const [customer, rates, settings] = await Promise.all([
    customerOf(tx, scope, draft.customer_id, reads),
    ratesForInvoice(tx, scope, fields.default_tax_rates, lines, change, reads?.taxRates),
    settingsOf(tx, scope, reads),
  ]);
  const totals = priceInvoice(
    lines,
    fields.default_tax_rates,
    rates,
    customer.tax_exempt,
    change.param,
  );
  const row = await insertDraft(
    tx,
    scope,
    { ...draft, id: draft.id ?? newId('inv') },
    fields,
    totals,
    lines,
  );
  const lineRows = lines.map((l) => ({ ...l, invoice_id: row.id }));
  const shown = invoiceFromRow(row, lineRows, utcDateOf(now));
  const invoice = await withReadiness(tx, scope, shown, now, customer, settings);
  uow.event('invoice.created', invoice);
  return invoice;
}

export function draftFields(row: InvoiceRow): DraftFields {
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

type LinesChange = (
  tx: Tx,
  scope: TenantScope,
  row: InvoiceRow,
) => Promise<{
  lines: LineRow[];
  newlyUsed: ReadonlySet<string>;
  param: string;
  /** The draft's own fields, when the change changes them too. */
  fields?: DraftFields;
}>;

/**
 * A change of a draft's lines inside a unit of work: the invoice locked (the lock serialises
 * line changes) and allowed an edit; `change` changes its lines and says which rates they newly
 * use and which field is blamed for a mix; the draft is repriced and stored; invoice.updated.
 */
export async function changeLinesIn(
  uow: UnitOfWork,
  id: string,
  now: Date,
  change: LinesChange,
): Promise<Invoice> {
  const { tx, actor: scope } = uow;
  const row = await lockInvoiceFor(tx, scope, id, 'edit');
  const { lines, fields = draftFields(row), ...repricing } = await change(tx, scope, row);
  const invoice = await saveDraft(tx, scope, row, fields, lines, repricing, now);
  uow.event('invoice.updated', invoice);
  return invoice;
}

/**
 * Adds lines after the draft's last (under the lock changeLinesIn holds, so the count and the
 * positions stay true); returns every line, and the rate ids the draft used before.
 */
export async function appendLines(
  tx: Tx,
  scope: TenantScope,
  row: InvoiceRow,
  make: (firstPosition: number) => Omit<LineRow, 'invoice_id'>[],
): Promise<{ lines: LineRow[]; before: ReadonlySet<string> }> {
  const lines = await selectLines(tx, scope, [row.id]);
  const position = Math.max(0, ...lines.map((l) => l.position)) + 1;
  const added = make(position);
  if (lines.length + added.length > MAX_LINES) {
    throw new ParameterInvalidError('lines', `An invoice has at most ${MAX_LINES} lines.`);
  }
  await insertLines(tx, scope, row.id, added);
  return {
    lines: [...lines, ...added.map((l) => ({ ...l, invoice_id: row.id }))],
    before: rateIdsOf(row.default_tax_rates, lines),
  };
}

export function addInvoiceLine(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
  input: LineCreate,
): Promise<Written<Invoice>> {
  return unitOfWork(db, request, (uow) =>
    changeLinesIn(uow, id, clock.now(), async (tx, scope, row) => {
      const { lines, before } = await appendLines(tx, scope, row, (position) =>
        newLines([input], position, () => ''),
      );
      return {
        lines,
        newlyUsed: new Set((input.taxRates ?? []).filter((r) => !before.has(r))),
        param: 'taxRates',
      };
    }),
  );
}

export function removeInvoiceLine(
  db: Db,
  clock: Clock,
  request: WriteRequest,
  id: string,
  lineId: string,
): Promise<Written<Invoice>> {
  return unitOfWork(db, request, (uow) =>
    changeLinesIn(uow, id, clock.now(), async (tx, scope) => {
      if (!(await deleteLine(tx, scope, id, lineId))) {
        throw new ResourceMissingError('invoice line', lineId);
      }
      return { lines: await selectLines(tx, scope, [id]), newlyUsed: new Set(), param: 'lines' };
    }),
  );
}
