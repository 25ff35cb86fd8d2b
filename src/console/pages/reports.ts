// Reports (docs/console.md, "Reports"): receivables aged by days past due, per currency, and
// the VAT of a month or a quarter, per rate, each with the CSV download the API's report
// endpoints give (the same reports service and CSV). Printing shows the tables alone.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Composition } from '../../composition.ts';
import { formatAmount, formatDate } from '../../documents/i18n.ts';
import { sendCsv } from '../../reports/csv.ts';
import { AGING_BUCKETS } from '../../reports/schemas.ts';
import { receivablesCsv, taxCsv } from '../../reports/service.ts';
import { consoleRoute, sessionOf, showPage, textOf } from '../page.ts';

/** A month (m01–m12) or a quarter (q1–q4) of a year. */
const PERIODS = [
  ...Array.from({ length: 12 }, (_, i) => `m${String(i + 1).padStart(2, '0')}`),
  'q1',
  'q2',
  'q3',
  'q4',
];
/** A year of 2000–2099 (query strings are text: never coerced). */
const Year = Type.String({ pattern: '^20[0-9]{2}$' });
const PeriodName = Type.String({ enum: PERIODS });
const PeriodQuery = Type.Object({ year: Type.Optional(Year), period: Type.Optional(PeriodName) });
type PeriodQuery = Static<typeof PeriodQuery>;
/** The CSV's link names its period. */
const TaxCsvQuery = Type.Object({ year: Year, period: PeriodName });

interface Period {
  year: number;
  period: string;
  from: string;
  to: string;
}

/** The UTC days of the chosen period; the month of `today` when none is chosen. */
function periodOf(query: PeriodQuery, today: string): Period {
  const year = Number(query.year ?? today.slice(0, 4));
  const period = query.period ?? `m${today.slice(5, 7)}`;
  const [first, last] = period.startsWith('q')
    ? [Number(period[1]) * 3 - 2, Number(period[1]) * 3]
    : [Number(period.slice(1)), Number(period.slice(1))];
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return {
    year,
    period,
    from: day(new Date(Date.UTC(year, first - 1, 1))),
    to: day(new Date(Date.UTC(year, last, 0))),
  };
}

/** The names of the periods in the page's language: the months, then Q1–Q4. */
function periodLabels(request: FastifyRequest): { value: string; label: string }[] {
  const t = textOf(request);
  const month = new Intl.DateTimeFormat(request.console.lang, { month: 'long', timeZone: 'UTC' });
  return PERIODS.map((value) => ({
    value,
    label: value.startsWith('q')
      ? t('console.reports.quarter', { quarter: Number(value[1]) })
      : month.format(new Date(Date.UTC(2000, Number(value.slice(1)) - 1, 1))),
  }));
}

export async function reportPages(app: FastifyInstance, { reports, consoleAging }: Composition) {
  app.get(
    '/reports',
    consoleRoute('invoices:read', { querystring: PeriodQuery }),
    async (request, reply) => {
      const scope = sessionOf(request).actor;
      const receivables = await consoleAging(scope);
      const { lang } = request.console;
      const t = textOf(request);
      const chosen = periodOf(request.query as PeriodQuery, receivables.asOf);
      const tax = await reports.tax(scope, chosen.from, chosen.to);
      const money = (amount: number | bigint, currency: string) =>
        formatAmount(amount, currency, lang);
      const query = `year=${chosen.year}&period=${chosen.period}`;
      return showPage(request, reply, 'reports', t('console.reports.title'), {
        asOf: formatDate(receivables.asOf, lang),
        buckets: AGING_BUCKETS.map((b) => t(`console.reports.bucket.${b}`)),
        receivables: receivables.totals.map((r) => ({
          currency: r.currency.toUpperCase(),
          invoices: r.invoices,
          buckets: AGING_BUCKETS.map((b) => money(r.buckets[b], r.currency)),
          total: money(r.total, r.currency),
        })),
        period: {
          ...chosen,
          fromText: formatDate(chosen.from, lang),
          toText: formatDate(chosen.to, lang),
        },
        periods: periodLabels(request),
        rates: tax.data.map((r) => ({
          currency: r.currency.toUpperCase(),
          country: r.country ?? '—',
          category: r.category,
          name: r.displayName ?? r.taxRateId,
          percentage: r.percentage === null ? '—' : `${r.percentage.toLocaleString(lang)} %`,
          documents: r.invoices + r.creditNotes,
          taxable: money(r.taxableAmount, r.currency),
          tax: money(r.tax, r.currency),
        })),
        taxTotals: tax.totals.map((r) => ({
          currency: r.currency.toUpperCase(),
          net: money(r.totalExcludingTax, r.currency),
          tax: money(r.tax, r.currency),
          gross: money(r.total, r.currency),
        })),
        taxCsv: `/console/reports/tax.csv?${query}`,
      });
    },
  );

  app.get('/reports/receivables.csv', consoleRoute('invoices:read'), async (request, reply) => {
    const report = await reports.receivables(sessionOf(request).actor, undefined);
    return sendCsv(reply, `receivables-${report.asOf}.csv`, receivablesCsv(report));
  });

  app.get(
    '/reports/tax.csv',
    consoleRoute('invoices:read', { querystring: TaxCsvQuery }),
    async (request, reply) => {
      const scope = sessionOf(request).actor;
      const { from, to } = periodOf(request.query as Static<typeof TaxCsvQuery>, '');
      return sendCsv(reply, `tax-${from}-${to}.csv`, taxCsv(await reports.tax(scope, from, to)));
    },
  );
}
