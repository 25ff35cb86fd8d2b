// Customers (docs/console.md, "Customers"): the list, newest first, page by page; a search by
// id, name or e-mail prefix; a customer's page with its invoices, subscriptions, payments and
// credit notes; and a form that creates a customer (through the customers service, as
// POST /v1/customers does, its event naming the person).
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Composition } from '../../composition.ts';
import { formatAmount, formatDate } from '../../documents/i18n.ts';
import { isoInstant } from '../../db/text-rows.ts';
import { listBinding, readPageRequest } from '../../paging.ts';
import { consoleRoute, consoleWrite, sessionOf, showPage, textOf } from '../page.ts';
import { permits } from '../roles.ts';

const ListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
});
const CustomerParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const CustomerForm = Type.Object({
  _csrf: Type.Optional(Type.String()),
  idempotencyKey: Type.String({ maxLength: 100 }),
  name: Type.String({ maxLength: 200 }),
  email: Type.String({ maxLength: 254 }),
});
const PAGE_SIZE = 25;
const SHOWN = 10;

export async function customerPages(app: FastifyInstance, deps: Composition) {
  const { customers, invoices, subscriptions, payments, creditNotes, cursors } = deps;

  app.get(
    '/customers',
    consoleRoute('customers:read', { querystring: ListQuery }),
    async (request, reply) => {
      const session = sessionOf(request);
      const query = request.query as Static<typeof ListQuery>;
      const t = textOf(request);
      const q = query.q?.trim() ?? '';
      let rows: { id: string; name: string | null; email: string | null; created_at: Date }[];
      let next: string | null = null;
      if (q !== '') {
        rows = await deps.consoleCustomerSearch(session.actor, q);
      } else {
        const binding = listBinding(session.actor, 'console customers');
        const page = readPageRequest(cursors, { limit: PAGE_SIZE, ...query }, binding);
        const found = (await customers.list(session.actor, {}, page)).map((row) => ({
          ...row,
          created_at: new Date(isoInstant(row.created_at)),
        }));
        rows = found.slice(0, PAGE_SIZE);
        const last = rows[rows.length - 1];
        if (found.length > PAGE_SIZE && last) {
          next = cursors.sign({ t: last.created_at.toISOString(), i: last.id, b: binding });
        }
      }
      return showPage(request, reply, 'customers', t('console.customers.title'), {
        q,
        customers: rows.map((row) => ({
          id: row.id,
          name: row.name ?? t('console.customers.unnamed'),
          email: row.email ?? '',
          created: formatDate(row.created_at.toISOString().slice(0, 10), request.console.lang),
        })),
        next: next && `/console/customers?cursor=${encodeURIComponent(next)}`,
        canCreate: permits(session.user.role, 'customers:write'),
      });
    },
  );

  app.post(
    '/customers',
    consoleRoute('customers:write', { body: CustomerForm }),
    async (request, reply) => {
      const form = request.body as Static<typeof CustomerForm>;
      const write = consoleWrite(request, form, (customer: { id: string }) => {
        return `/console/customers/${customer.id}`;
      });
      const written = await customers.create(write, {
        ...(form.name.trim() ? { name: form.name.trim() } : {}),
        ...(form.email.trim() ? { email: form.email.trim() } : {}),
      });
      return reply.code(303).redirect(write.location(written));
    },
  );

  app.get(
    '/customers/:id',
    consoleRoute('customers:read', { params: CustomerParams }),
    async (request, reply) => {
      const session = sessionOf(request);
      const { id } = request.params as Static<typeof CustomerParams>;
      const { lang } = request.console;
      const t = textOf(request);
      const scope = session.actor;
      const customer = await customers.read(scope, id);
      const first = { limit: SHOWN, after: null };
      const [invoiceRows, subscriptionRows, paymentRows] = await Promise.all([
        invoices.list(scope, { customerId: id }, first),
        subscriptions.list(scope, { customerId: id }, first),
        payments.list(scope, { customerId: id }, first),
      ]);
      const shownInvoices = invoiceRows.slice(0, SHOWN).map((r) => r.invoice);
      const credited = shownInvoices.filter((i) => i.amountCredited > 0);
      const creditNoteRows = (
        await Promise.all(credited.map((i) => creditNotes.list(scope, { invoiceId: i.id }, first)))
      ).flat();
      const money = (amount: number, currency: string) => formatAmount(amount, currency, lang);
      const date = (iso: string | null | undefined) =>
        iso ? formatDate(iso.slice(0, 10), lang) : '—';
      return showPage(request, reply, 'customer', customer.name ?? customer.id, {
        customer: {
          id: customer.id,
          email: customer.email ?? '—',
          created: date(customer.createdAt),
        },
        invoices: shownInvoices.map((i) => ({
          number: i.number ?? t('console.invoice.draft'),
          status: t(`console.invoice.status.${i.status}`),
          total: money(i.total, i.currency),
          remaining: money(i.amountRemaining, i.currency),
          due: date(i.dueDate),
        })),
        subscriptions: subscriptionRows.slice(0, SHOWN).map(({ view }) => ({
          id: view.id,
          status: t(`console.subscription.status.${view.status}`),
          periodEnd: date(view.currentPeriod?.end),
        })),
        payments: paymentRows.slice(0, SHOWN).map((row) => {
          const p = payments.fromRow(row);
          return {
            date: date(p.receivedAt),
            amount: money(p.amount, p.currency),
            method: p.method,
            voided: p.status === 'void',
          };
        }),
        creditNotes: creditNoteRows.map(({ creditNote: c }) => ({
          number: c.number,
          date: date(c.createdAt),
          amount: money(c.total, c.currency),
        })),
      });
    },
  );
}
