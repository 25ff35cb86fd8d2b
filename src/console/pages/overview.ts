// The overview (docs/console.md, "Overview"): monthly recurring revenue, open and overdue
// receivables, and revenue per month for the last 12 months as an SVG chart with its table.
import type { FastifyInstance } from 'fastify';
import type { Composition } from '../../composition.ts';
import { formatAmount } from '../../documents/i18n.ts';
import { barChart } from '../chart.ts';
import { consoleRoute, sessionOf, showPage, textOf } from '../page.ts';

export async function overviewPages(app: FastifyInstance, { consoleOverview }: Composition) {
  app.get('/', consoleRoute('invoices:read'), async (request, reply) => {
    const session = sessionOf(request);
    const { lang, timeZone } = request.console;
    const t = textOf(request);
    const figures = await consoleOverview(session.actor, timeZone);
    const money = (amount: bigint, currency: string) => formatAmount(amount, currency, lang);
    const monthName = new Intl.DateTimeFormat(lang, {
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    });
    const months = figures.months.map((m) => monthName.format(new Date(`${m}-01T00:00:00Z`)));
    // The chart shows the currency that invoiced most; the table shows every currency.
    const main = [...figures.revenue].sort((a, b) =>
      Number(b.amounts.reduce((x, y) => x + y, 0n) - a.amounts.reduce((x, y) => x + y, 0n)),
    )[0];
    const chart = main
      ? barChart(
          main.amounts.map((amount, i) => ({
            label: months[i]!,
            value: Number(amount),
            text: money(amount, main.currency),
          })),
          (value) => money(BigInt(Math.round(value)), main.currency),
        )
      : null;
    return showPage(request, reply, 'overview', t('console.overview.title'), {
      recurring: figures.recurring.map((r) => money(r.monthly, r.currency)),
      receivables: figures.receivables.map((r) => ({
        open: money(r.open, r.currency),
        overdue: money(r.overdue, r.currency),
        invoices: r.invoices,
      })),
      chart,
      chartCurrency: main?.currency.toUpperCase() ?? '',
      months,
      revenue: figures.revenue.map((r) => ({
        currency: r.currency.toUpperCase(),
        amounts: r.amounts.map((a) => money(a, r.currency)),
      })),
    });
  });
}
