// Invoices (docs/console.md, "Invoices"): the list, newest first, 25 a page, filtered by status,
// customer and issue date, or found by number or id; an invoice's page (./invoice-view.ts);
// its stored PDF and e-invoices, sent as the API sends them. The actions are in
// ./invoice-actions.ts.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Composition } from '../../composition.ts';
import { checkedDate } from '../../dates.ts';
import { formatAmount, formatDate } from '../../documents/i18n.ts';
import { ParameterInvalidError } from '../../errors.ts';
import { INVOICE_STATUSES } from '../../invoices/state.ts';
import { listBinding, readPageRequest } from '../../paging.ts';
import { localDate } from '../../subscriptions/calendar.ts';
import type { ListedInvoice } from '../invoices.ts';
import { invoiceView } from '../invoice-view.ts';
import { consoleRoute, sessionOf, showPage, textOf } from '../page.ts';

const Filter = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const ListQuery = Type.Object({
  status: Filter(20),
  customer: Filter(100),
  from: Filter(10),
  to: Filter(10),
  q: Filter(100),
  cursor: Filter(500),
});
type ListQuery = Static<typeof ListQuery>;
export const InvoiceParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const EinvoiceQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('ubl'), Type.Literal('cii')])),
});
const PAGE_SIZE = 25;

/** The filters in force: empty fields (a GET form sends them) are absent; each one checked. */
function filtersOf(query: ListQuery) {
  const given = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
  const status = given(query.status);
  if (status !== undefined && !(INVOICE_STATUSES as readonly string[]).includes(status)) {
    throw new ParameterInvalidError(
      'status',
      `status must be one of ${INVOICE_STATUSES.join(', ')}.`,
    );
  }
  const from = given(query.from);
  const to = given(query.to);
  return {
    status,
    customerId: given(query.customer),
    from: from === undefined ? undefined : checkedDate(from, 'from'),
    to: to === undefined ? undefined : checkedDate(to, 'to'),
    q: given(query.q),
  };
}

function sendDocument(
  reply: FastifyReply,
  type: string,
  disposition: string,
  filename: string,
  body: Uint8Array | string,
): FastifyReply {
  return reply
    .type(type)
    .header('content-disposition', `${disposition}; filename="${filename}"`)
    .send(body);
}

export async function invoicePages(app: FastifyInstance, deps: Composition) {
  const { invoices, cursors, consoleInvoices } = deps;

  app.get(
    '/invoices',
    consoleRoute('invoices:read', { querystring: ListQuery }),
    async (request, reply) => {
      const scope = sessionOf(request).actor;
      const query = request.query as ListQuery;
      const { lang, timeZone } = request.console;
      const t = textOf(request);
      const filters = filtersOf(query);
      const { q, from, to, ...sifted } = filters;
      let rows: ListedInvoice[];
      let next: string | null = null;
      if (q !== undefined) {
        rows = await consoleInvoices.named(scope, q);
      } else {
        const byIssue = from !== undefined || to !== undefined;
        const binding = listBinding(
          scope,
          byIssue ? 'console invoices issued' : 'console invoices',
          {
            status: sifted.status,
            customer: sifted.customerId,
            from,
            to,
          },
        );
        const page = readPageRequest(
          cursors,
          { limit: PAGE_SIZE, ...(query.cursor ? { cursor: query.cursor } : {}) },
          binding,
        );
        // A draft has no issue date: drafts issued in a range are none, found without a query.
        const found =
          byIssue && sifted.status === 'draft'
            ? []
            : byIssue
              ? await consoleInvoices.byIssue(
                  scope,
                  { from: from ?? '0001-01-01', to: to ?? '9999-12-30', timeZone },
                  sifted,
                  page,
                )
              : await consoleInvoices.byCreation(scope, sifted, page);
        rows = found.slice(0, PAGE_SIZE);
        const last = rows[rows.length - 1];
        if (found.length > PAGE_SIZE && last) {
          const at = byIssue ? last.issued_at! : last.created_at;
          const cursor = cursors.sign({ t: at.toISOString(), i: last.id, b: binding });
          const kept = Object.entries({
            status: sifted.status,
            customer: sifted.customerId,
            from,
            to,
          }).filter((entry): entry is [string, string] => entry[1] !== undefined);
          next = `/console/invoices?${new URLSearchParams([...kept, ['cursor', cursor]]).toString()}`;
        }
      }
      const date = (iso: string | null) => (iso ? formatDate(iso, lang) : '—');
      return showPage(request, reply, 'invoices', t('console.invoices.title'), {
        filters: { ...filters, status: filters.status ?? '', customer: filters.customerId ?? '' },
        statuses: INVOICE_STATUSES.map((s) => ({
          value: s,
          label: t(`console.invoice.status.${s}`),
        })),
        invoices: rows.map((row) => ({
          id: row.id,
          number: row.number ?? t('console.invoice.draft'),
          status: t(`console.invoice.status.${row.status as (typeof INVOICE_STATUSES)[number]}`),
          customerId: row.customer_id,
          customer: row.customer_name ?? row.customer_id,
          total: formatAmount(row.total, row.currency, lang),
          remaining: formatAmount(row.amount_remaining, row.currency, lang),
          issued: date(row.issued_at && localDate(row.issued_at, timeZone)),
          due: date(row.due_date),
        })),
        next,
        searched: q !== undefined,
      });
    },
  );

  app.get(
    '/invoices/:id',
    consoleRoute('invoices:read', { params: InvoiceParams }),
    async (request, reply) => {
      const { id } = request.params as Static<typeof InvoiceParams>;
      const view = await invoiceView(deps, request, id);
      return showPage(request, reply, 'invoice', view.title, view);
    },
  );

  app.get(
    '/invoices/:id/pdf',
    consoleRoute('invoices:read', { params: InvoiceParams }),
    async (request, reply) => {
      const { id } = request.params as Static<typeof InvoiceParams>;
      const { filename, pdf } = await invoices.pdf(sessionOf(request).actor, id);
      return sendDocument(reply, 'application/pdf', 'inline', filename, pdf);
    },
  );

  app.get(
    '/invoices/:id/e-invoice',
    consoleRoute('invoices:read', { params: InvoiceParams, querystring: EinvoiceQuery }),
    async (request, reply) => {
      const { id } = request.params as Static<typeof InvoiceParams>;
      const { format } = request.query as Static<typeof EinvoiceQuery>;
      const { filename, xml } = await invoices.einvoice(
        sessionOf(request).actor,
        id,
        format ?? 'ubl',
      );
      return sendDocument(reply, 'application/xml', 'attachment', filename, xml);
    },
  );
}
