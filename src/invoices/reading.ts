// Reading invoices as the API shows them: one invoice, or a page of them, with their hosted
// URLs and drafts' e-invoice readiness.
import { utcDateOf, type Clock } from '../clock.ts';
import type { Db, Tx } from '../db/pool.ts';
import { existingRowById } from '../db/row-by-id.ts';
import type { HostedLinks } from '../hosted/links.ts';
import type { PageRequest } from '../paging.ts';
import type { CustomerRow } from '../customers/store.ts';
import type { SettingsWithTenantName } from '../settings/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { withDraftReadiness, withReadiness } from './einvoice-readiness.ts';
import { invoiceFromRow } from './model.ts';
import type { Invoice } from './schemas.ts';
import {
  selectInvoicePage,
  selectInvoiceWithLines,
  selectShownInvoice,
  type DraftContextJson,
  type InvoiceFilters,
} from './store.ts';

const loadInvoiceWithLines = existingRowById(selectInvoiceWithLines, 'invoice');
const loadShownInvoice = existingRowById(selectShownInvoice, 'invoice');

/** A draft's customer, settings and tenant name as read with it, as rows; none if issued. */
function draftContext(
  context: DraftContextJson | null,
): [customer?: CustomerRow, settings?: SettingsWithTenantName] {
  if (!context?.customer || !context.settings || context.tenantName === null) return [];
  const { customer, settings, tenantName } = context;
  return [
    {
      ...customer,
      created_at: new Date(customer.created_at),
      updated_at: new Date(customer.updated_at),
    },
    { settings: { ...settings, updated_at: new Date(settings.updated_at) }, tenantName },
  ];
}

/** The invoice, its `overdue` as of `today` (YYYY-MM-DD, UTC). */
export async function getInvoice(
  db: Db | Tx,
  scope: TenantScope,
  id: string,
  today: string,
): Promise<Invoice> {
  // One statement, so one snapshot: the totals and the lines always belong together.
  const row = await loadInvoiceWithLines(db, scope, id);
  return invoiceFromRow(row, row.lines, today);
}

/** The invoice as the API shows it: with its hosted URL. */
export async function showInvoice(
  db: Db,
  clock: Clock,
  links: HostedLinks,
  scope: TenantScope,
  id: string,
): Promise<Invoice> {
  // One statement: the invoice, its lines, its hosted link and a draft's context.
  const row = await loadShownInvoice(db, scope, id);
  const now = clock.now();
  const invoice = await withReadiness(
    db,
    scope,
    invoiceFromRow(row, row.lines, utcDateOf(now)),
    now,
    ...draftContext(row.draft_context),
  );
  return { ...invoice, hostedInvoiceUrl: links.urlOf(scope, row.id, row.hosted_token_sealed) };
}

export async function listInvoices(
  db: Db,
  clock: Clock,
  links: HostedLinks,
  scope: TenantScope,
  filters: InvoiceFilters,
  page: PageRequest,
): Promise<{ id: string; created_at: Date; invoice: Invoice }[]> {
  // The page, its lines and its hosted links in one statement (primary key prefix look-ups).
  const rows = await selectInvoicePage(db, scope, filters, page);
  // Drafts' e-invoice readiness: at most three reads for the page (./einvoice-readiness.ts).
  const now = clock.now();
  const shown = rows.map((row) => invoiceFromRow(row, row.lines, utcDateOf(now)));
  const invoices = await withDraftReadiness(db, scope, shown, now);
  return rows.map((row, i) => ({
    id: row.id,
    created_at: row.created_at,
    invoice: {
      ...invoices[i]!,
      hostedInvoiceUrl: links.urlOf(scope, row.id, row.hosted_token_sealed),
    },
  }));
}
