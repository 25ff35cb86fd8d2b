// An issued invoice's hosted link (src/hosted/links.ts) as the API shows it: `hostedInvoiceUrl`
// on every invoice the API returns, made when the invoice is issued and replaced on request.
//
// Events carry invoices with `hostedInvoiceUrl: null` (they are stored, and delivered to webhook
// endpoints that may log them): the work records its events before the URL is added. A write
// whose answer shows the URL says so: its stored Idempotency-Key result holds it only sealed
// under the server's secrets key, and is replayed only to the very key that made the request,
// as results that carry a secret are (src/http/kept-results.ts). A key rotated from it reads the
// invoice, URL included, with a GET; a replay is not how a link reaches another key.
import { todayUtcOf, type Clock } from '../clock.ts';
import type { Db, Queryable } from '../db/pool.ts';
import {
  unitOfWork,
  type UnitOfWork,
  type WriteRequest,
  type Written,
} from '../db/unit-of-work.ts';
import { StateInvalidError } from '../errors.ts';
import type { HostedLinks } from '../hosted/links.ts';
import type { TenantScope } from '../tenancy.ts';
import { loadInvoiceRow, withLines } from './model.ts';
import type { Invoice } from './schemas.ts';

/** The invoices with their hosted URLs (null: a draft, or no working link). */
export async function withHostedUrls(
  db: Queryable,
  links: HostedLinks,
  scope: TenantScope,
  invoices: readonly Invoice[],
): Promise<Invoice[]> {
  const issued = invoices.filter((i) => i.status !== 'draft').map((i) => i.id);
  const urls = issued.length === 0 ? new Map() : await links.urls(db, scope, issued);
  return invoices.map((i) => ({ ...i, hostedInvoiceUrl: urls.get(i.id) ?? null }));
}

/**
 * The invoice a write answers with, with its hosted URL (`url`: the URL the write knows or read
 * already, null for none; else read); the answer is then the very key's.
 */
export async function shownByWrite(
  uow: UnitOfWork,
  links: HostedLinks,
  invoice: Invoice,
  url?: string | null,
): Promise<Invoice> {
  const [shown] =
    url === undefined
      ? await withHostedUrls(uow.tx, links, uow.actor, [invoice])
      : [{ ...invoice, hostedInvoiceUrl: url }];
  if (shown!.hostedInvoiceUrl) uow.showsCapability();
  return shown!;
}

/**
 * Replaces the issued invoice's hosted link: the old URL stops working when this commits.
 * Drafts have none (409). No event: the link is not part of the invoice's record, and events
 * never carry it.
 */
export function replaceHostedLink(
  db: Db,
  clock: Clock,
  links: HostedLinks,
  request: WriteRequest,
  id: string,
): Promise<Written<Invoice>> {
  return unitOfWork(db, request, async (uow) => {
    const { tx, actor: scope } = uow;
    const row = await loadInvoiceRow(tx, scope, id, { forUpdate: true });
    if (row.status === 'draft') {
      throw new StateInvalidError('A draft has no hosted page; issue it first.');
    }
    const invoice = await withLines(tx, scope, row, todayUtcOf(clock));
    const url = await links.make(tx, scope, invoice);
    return shownByWrite(uow, links, invoice, url);
  });
}
