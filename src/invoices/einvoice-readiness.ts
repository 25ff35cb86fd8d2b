// An invoice's e-invoice readiness (src/documents/readiness.ts): whether its data make its
// EN 16931 e-invoices, by the rules that refuse an e-invoice request, so that what a draft
// shows and what its issued e-invoice answers cannot disagree. An issued invoice is judged on
// what it froze (pure, no query); a draft on what issuing it now would freeze
// (./snapshots.ts), which takes the settings, the tenant's name and its customer: at most one
// query each per answer, however many drafts a page holds.
import { getCustomerRows } from '../customers/service.ts';
import type { CustomerRow } from '../customers/store.ts';
import type { Queryable } from '../db/pool.ts';
import type { DocumentModel } from '../documents/model.ts';
import { einvoiceRefusal, readinessOf } from '../documents/readiness.ts';
import {
  getSettingsWithTenantName,
  type SettingsRow,
  type SettingsWithTenantName,
} from '../settings/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { invoiceDocumentModel } from './document.ts';
import type { EinvoiceReadiness, Invoice, SellerSnapshot } from './schemas.ts';
import { frozenAtIssue } from './snapshots.ts';

/**
 * Under the setting `einvoiceRequired`, an issued invoice whose e-invoices cannot be made is
 * refused (the caller's transaction, number and events included, rolls back).
 */
export function assertIssuable(invoice: Invoice, seller: SellerSnapshot): void {
  const readiness = invoice.einvoice;
  if (!readiness || readiness.ready) return;
  const model = invoiceDocumentModel(invoice, seller, invoice.customer!, { draft: false });
  throw einvoiceRefusal(readiness.missing, model, { issuing: true });
}

/** An issued invoice's readiness, from what it froze; null if it froze no seller. */
export function issuedReadiness(
  invoice: Invoice,
  seller: SellerSnapshot | null,
): EinvoiceReadiness | null {
  if (invoice.status === 'draft' || !seller || !invoice.customer) return null;
  const model = invoiceDocumentModel(invoice, seller, invoice.customer, { draft: false });
  return readinessOf(model);
}

/** The document issuing the draft now would make (with a stand-in for its number). */
export function draftAsIssued(
  draft: Invoice,
  customer: CustomerRow,
  settings: SettingsRow,
  tenantName: string,
  now: Date,
): DocumentModel {
  const frozen = frozenAtIssue(
    {
      due_date: draft.dueDate,
      days_until_due: draft.daysUntilDue,
      supply_date: draft.supplyDate,
      service_period_start: draft.servicePeriod?.start ?? null,
      buyer_reference: draft.buyerReference,
    },
    customer,
    settings,
    tenantName,
    now,
  );
  const issued: Invoice = {
    ...draft,
    number: `${settings.invoice_prefix}000000`,
    issuedAt: now.toISOString(),
    dueDate: frozen.due_date,
    supplyDate: frozen.supply_date,
    buyerReference: frozen.buyer_reference,
    customer: frozen.customer_snapshot,
  };
  return invoiceDocumentModel(issued, frozen.seller_snapshot, frozen.customer_snapshot, {
    draft: false,
    now,
  });
}

/**
 * The invoices with their drafts' readiness filled in (issued ones carry theirs already):
 * the settings, the tenant's name (only when the settings have no legal name) and the drafts'
 * customers not `known` already are read once for all of them.
 */
export async function withDraftReadiness<T extends Invoice>(
  db: Queryable,
  scope: TenantScope,
  invoices: readonly T[],
  now: Date,
  known: readonly CustomerRow[] = [],
  knownSettings?: SettingsWithTenantName,
): Promise<T[]> {
  const drafts = invoices.filter((i) => i.status === 'draft');
  if (drafts.length === 0) return [...invoices];
  const customers = new Map(known.map((c) => [c.id, c]));
  const unknown = [...new Set(drafts.map((d) => d.customerId))].filter((id) => !customers.has(id));
  // Both at once: on a pool they are two connections' work in parallel, in a transaction one
  // round trip (the pool pipelines), not two waits.
  const [{ settings, tenantName: name }, rows] = await Promise.all([
    knownSettings ?? getSettingsWithTenantName(db, scope),
    getCustomerRows(db, scope, unknown),
  ]);
  const tenantName = settings.legal_name ?? name;
  for (const [id, row] of rows) customers.set(id, row);
  return invoices.map((invoice) => {
    const customer = customers.get(invoice.customerId);
    if (invoice.status !== 'draft' || !customer) return invoice;
    const model = draftAsIssued(invoice, customer, settings, tenantName, now);
    return { ...invoice, einvoice: readinessOf(model) };
  });
}

/** One invoice with its readiness (a draft's customer may be given, already read). */
export async function withReadiness(
  db: Queryable,
  scope: TenantScope,
  invoice: Invoice,
  now: Date,
  customer?: CustomerRow,
  settings?: SettingsWithTenantName,
): Promise<Invoice> {
  const known = customer ? [customer] : [];
  return (await withDraftReadiness(db, scope, [invoice], now, known, settings))[0]!;
}
