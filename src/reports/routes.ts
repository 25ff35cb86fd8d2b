// HTTP for the reports: schema, scope, call the service, shape the reply (JSON or CSV).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type { RoutePlugin } from '../http/plugin.ts';
import { errorResponses } from '../http/schemas.ts';
import { sendCsv } from './csv.ts';
import { ReceivablesQuery, ReceivablesReport, TaxReport, TaxReportQuery } from './schemas.ts';
import { receivablesCsv, taxCsv } from './service.ts';

const tags = ['Reports'];
// A report reads every invoice of the tenant: it takes turns (src/http/expensive-requests.ts).
const read = { scope: 'invoices:read' as const, expensive: true as const };

/** JSON by default, or the CSV rendering with `?format=csv`. */
function jsonOrCsv(description: string, json: TSchema) {
  return {
    description,
    content: {
      'application/json': { schema: json },
      'text/csv': {
        schema: {
          type: 'string',
          description:
            "RFC 4180, with a header row, CRLF line ends, one record per line of the report. A field holding CR, LF, a double quote or a comma is quoted. A text field (names) that would start a formula (`=`, `+`, `-`, `@`, TAB or CR first, or after leading white space and invisible characters such as NBSP or a zero-width space, or full-width `＝` `＋` `－` `＠`) gets the guard `'` as its very first character. Figures the report computes (amounts, percentages, counts) are numbers, written as they are and never guarded, negative ones too.",
        },
      },
    },
  };
}

export const reportRoutes: RoutePlugin = async (server, { reports }) => {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/reports/receivables',
    {
      config: read,
      schema: {
        tags,
        operationId: 'getReceivablesReport',
        summary: 'Receivables aged by days past due',
        description:
          'What customers owed at the end of `asOf` (a UTC day; default today), per currency and customer, in buckets of days past the due date on that day: current (not yet due, or no due date), 1_30, 31_60, 61_90, over_90. An invoice counts from the day it was issued until it is void; what it owed is its total less the payments and credit notes recorded by the end of asOf and not voided by then (by when they were recorded, not receivedAt), so a past day’s report never changes. Uncollectible invoices are still owed and included. Exact sums in minor units; `?format=csv` gives the lines as CSV.',
        querystring: ReceivablesQuery,
        response: {
          200: jsonOrCsv('The report.', ReceivablesReport),
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      const report = await reports.receivables(request.actor, request.query.asOf);
      if (request.query.format !== 'csv') return report;
      return sendCsv(reply, `receivables-${report.asOf}.csv`, receivablesCsv(report));
    },
  );

  app.get(
    '/v1/reports/tax',
    {
      config: read,
      schema: {
        tags,
        operationId: 'getTaxReport',
        summary: 'Tax of the documents of a period (the data of a VAT return)',
        description:
          'The invoices issued from `from` to `to` (UTC days, both included) less the credit notes issued then, per currency, the tax rate’s country, VAT category and tax rate: taxable amount and tax, from each document’s frozen breakdown; and per currency the totals of those documents (net, tax, gross; net includes untaxed lines). Void invoices, their credit notes and void credit notes are left out, as if never issued (a period’s figures change if one of its documents is voided later: credit an invoice instead of voiding it once it was declared). Exact sums in minor units; `?format=csv` gives the lines as CSV.',
        querystring: TaxReportQuery,
        response: {
          200: jsonOrCsv('The report.', TaxReport),
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      const { from, to, format } = request.query;
      const report = await reports.tax(request.actor, from, to);
      if (format !== 'csv') return report;
      return sendCsv(reply, `tax-${from}-${to}.csv`, taxCsv(report));
    },
  );
};
