// Subscriptions (docs/console.md, "Subscriptions"): the list, newest first, 25 a page, filtered
// by status; a subscription's page with its customer, items, current and past periods (the
// invoices it made), the upcoming invoice as the API computes it, and the forms of its actions
// (./subscription-actions.ts).
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { priceFromRow } from '../../catalog/service.ts';
import type { Composition } from '../../composition.ts';
import { formatAmount } from '../../documents/i18n.ts';
import { StateInvalidError } from '../../errors.ts';
import { buildPage, listBinding, readPageRequest } from '../../paging.ts';
import type { Subscription } from '../../subscriptions/schemas.ts';
import type { TenantScope } from '../../tenancy.ts';
import { consoleRoute, readerOf, showPage } from '../page.ts';
import { permits } from '../roles.ts';
import { localDay, localPeriod, priceLabel } from '../subscriptions.ts';
import { subscriptionActions } from './subscription-actions.ts';

export const LISTED_STATUSES = [
  'trialing',
  'active',
  'past_due',
  'paused',
  'canceled',
  'scheduled',
] as const;
const ListQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal(''), ...LISTED_STATUSES.map((s) => Type.Literal(s))]),
  ),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
});
const SubscriptionParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const PAGE_SIZE = 25;
/** The past periods shown: the subscription's newest invoices. */
const INVOICES_SHOWN = 24;
/** The catalogue's prices offered for a change (the newest active ones). */
const PRICES_OFFERED = 100;

/** The names of some customers, by id (primary key look-ups). */
async function customerNames(deps: Composition, scope: TenantScope, ids: string[]) {
  const unique = [...new Set(ids)];
  const found = await Promise.all(unique.map((id) => deps.customers.read(scope, id)));
  return new Map(found.map((c) => [c.id, c.name ?? c.email ?? c.id]));
}

/** The active recurring prices of the subscription's currency, with their products' names. */
async function offeredPrices(deps: Composition, scope: TenantScope, currency: string) {
  const first = { limit: PRICES_OFFERED, after: null };
  const [prices, products] = await Promise.all([
    deps.prices.list(scope, { active: true }, first),
    deps.products.list(scope, {}, first),
  ]);
  const names = new Map(products.map((p) => [p.id, p.name]));
  const offered = prices
    .slice(0, PRICES_OFFERED)
    .filter((p) => p.recurring_interval !== null && p.currency === currency)
    .map(priceFromRow);
  return { offered, names };
}

export async function subscriptionPages(app: FastifyInstance, deps: Composition) {
  const { cursors } = deps;
  app.get(
    '/subscriptions',
    consoleRoute('subscriptions:read', { querystring: ListQuery }),
    async (request, reply) => {
      const { scope, lang, t } = readerOf(request);
      const query = request.query as Static<typeof ListQuery>;
      const status = query.status || undefined;
      const binding = listBinding(scope, 'console subscriptions', { status });
      const page = readPageRequest(cursors, { limit: PAGE_SIZE, ...query }, binding);
      const found = await deps.subscriptions.list(scope, { status }, page);
      const { data: rows, nextCursor: next } = buildPage(cursors, found, page, binding, (r) => r);
      const names = await customerNames(
        deps,
        scope,
        rows.map((r) => r.customer_id),
      );
      const params = (cursor: string) =>
        new URLSearchParams({ ...(status ? { status } : {}), cursor }).toString();
      return showPage(request, reply, 'subscriptions', t('console.subscriptions.title'), {
        status: status ?? '',
        statuses: LISTED_STATUSES.map((s) => ({
          value: s,
          label: t(`console.subscription.status.${s}`),
        })),
        subscriptions: rows.map(({ view }) => ({
          id: view.id,
          customerId: view.customerId,
          customer: names.get(view.customerId) ?? view.customerId,
          status: t(`console.subscription.status.${view.status}`),
          items: t('console.subscriptions.itemCount', { count: view.items.length }),
          periodEnd: localDay(view.currentPeriod?.end ?? null, view.timeZone, lang),
          created: localDay(view.createdAt, view.timeZone, lang),
        })),
        next: next && `/console/subscriptions?${params(next)}`,
      });
    },
  );

  app.get(
    '/subscriptions/:id',
    consoleRoute('subscriptions:read', { params: SubscriptionParams }),
    async (request, reply) => {
      const { session, scope, lang, t } = readerOf(request);
      const { id } = request.params as Static<typeof SubscriptionParams>;
      const sub: Subscription = await deps.subscriptions.get(scope, id);
      const zone = sub.timeZone;
      const [customer, invoiceRows, upcoming, catalogue, itemPrices] = await Promise.all([
        deps.customers.read(scope, sub.customerId),
        deps.invoices.list(scope, { subscriptionId: id }, { limit: INVOICES_SHOWN, after: null }),
        deps.subscriptions.upcoming(scope, id).catch((error: unknown) => {
          if (error instanceof StateInvalidError) return null;
          throw error;
        }),
        offeredPrices(deps, scope, sub.currency),
        Promise.all(sub.items.map((item) => deps.prices.get(scope, item.price.id))),
      ]);
      const productNames = new Map(catalogue.names);
      const missing = sub.items.map((i) => i.price.productId).filter((p) => !productNames.has(p));
      for (const product of await Promise.all(
        [...new Set(missing)].map((p) => deps.products.get(scope, p)),
      )) {
        productNames.set(product.id, product.name);
      }
      const money = (amount: number) => formatAmount(amount, sub.currency, lang);
      const canWrite = permits(session.user.role, 'subscriptions:write');
      const open = sub.status !== 'canceled';
      return showPage(request, reply, 'subscription', sub.id, {
        sub: {
          id: sub.id,
          status: t(`console.subscription.status.${sub.status}`),
          customerId: sub.customerId,
          customer: customer.name ?? customer.email ?? customer.id,
          currentPeriod: sub.currentPeriod ? localPeriod(sub.currentPeriod, zone, lang) : '—',
          timeZone: zone,
          trialEnd: sub.trialEnd && localDay(sub.trialEnd, zone, lang),
          cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
          cancelAt: sub.cancelAt && localDay(sub.cancelAt, zone, lang),
          endedAt: sub.endedAt && localDay(sub.endedAt, zone, lang),
          pause: sub.pause && {
            behavior: t(`console.subscriptions.pause.${sub.pause.behavior}`),
            resumesAt: sub.pause.resumesAt && localDay(sub.pause.resumesAt, zone, lang),
          },
          nextInvoiceAt: localDay(sub.nextInvoiceAt, zone, lang),
          created: localDay(sub.createdAt, zone, lang),
        },
        items: sub.items.map((item, i) => ({
          id: item.id,
          product: productNames.get(item.price.productId) ?? item.price.productId,
          price: priceLabel(itemPrices[i]!, undefined, lang, t),
          quantity: item.price.recurring.usage === 'metered' ? '—' : String(item.quantity),
          metered: item.price.recurring.usage === 'metered',
        })),
        invoices: invoiceRows.slice(0, INVOICES_SHOWN).map(({ invoice: i }) => ({
          id: i.id,
          number: i.number ?? t('console.invoice.draft'),
          reason: t(`console.subscriptions.reason.${i.billingReason as 'subscription_cycle'}`),
          period: i.lines[0]?.period ? localPeriod(i.lines[0].period, zone, lang) : '—',
          status: t(`console.invoice.status.${i.status}`),
          total: formatAmount(i.total, i.currency, lang),
        })),
        upcoming: upcoming && {
          at: localDay(upcoming.createdAt, zone, lang),
          reason: t(`console.subscriptions.reason.${upcoming.billingReason}`),
          lines: upcoming.lines.map((l) => ({
            description: l.description,
            period: localPeriod(l.period, zone, lang),
            amount: money(l.amount),
          })),
          subtotal: money(upcoming.subtotal),
          tax: money(upcoming.tax),
          total: money(upcoming.total),
        },
        actions: canWrite &&
          open && {
            prices: catalogue.offered.map((p) => ({
              id: p.id,
              label: priceLabel(p, productNames.get(p.productId), lang, t),
            })),
            cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
            pausable: sub.status === 'active' || sub.status === 'past_due',
            paused: sub.status === 'paused',
            behaviors: (['void', 'keep_as_draft', 'mark_uncollectible'] as const).map((b) => ({
              value: b,
              label: t(`console.subscriptions.pause.${b}`),
            })),
          },
      });
    },
  );

  await subscriptionActions(app, deps);
}
