// HTTP for credit-notes: schema, scope, call the service, shape the reply.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RoutePlugin } from '../http/plugin.ts';
import { sendWrite } from '../http/idempotency.ts';
import { buildPage, listBinding, readPageRequest } from '../paging.ts';
import { errorResponses, IdempotencyHeaders, IdParams, NoBody, Page } from '../http/schemas.ts';
import { EinvoiceQuery } from '../invoices/schemas.ts';
import { CreditNote, CreditNoteCreate, CreditNoteListQuery } from './schemas.ts';

const tags = ['Credit notes'];
const write = { scope: 'invoices:write' as const };
const read = { scope: 'invoices:read' as const };

export const creditNoteRoutes: RoutePlugin = async (server, { creditNotes, cursors }) => {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/credit-notes',
    {
      config: write,
      schema: {
        tags,
        summary: 'Credit an open or paid invoice',
        description:
          'Give `amount` or `lines`, not both. Every amount is gross (tax included) in the invoice’s minor unit: `amount`, and a line without `invoiceLineId`, is split over the invoice’s frozen tax breakdown in proportion to each part (largest remainder); a line with `invoiceLineId` is split over that line’s own tax rates and is at most what the line was charged, tax included, less earlier credits of it. The credit note takes the invoice’s currency (a `currency` field is refused as unknown). Together the invoice’s credit notes that are not void never exceed its total: beyond what is left is 400 parameter_invalid naming `amount` or the line. On an open invoice the credit lowers `amountRemaining` (paid when it reaches 0); on a paid one it is recorded as refunded outside the API (`outOfBandAmount`). Other invoice statuses: 409 state_invalid; an invoice of another tenant or environment: 404 resource_missing (param invoiceId). The number (CN-000001…) is gapless per tenant and environment.',
        headers: IdempotencyHeaders,
        body: CreditNoteCreate,
        response: { 201: CreditNote, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 201, (write) => creditNotes.create(write, request.body)),
  );

  app.get(
    '/v1/credit-notes',
    {
      config: read,
      schema: {
        tags,
        summary: 'List credit notes, newest first',
        querystring: CreditNoteListQuery,
        response: { 200: Page(CreditNote), ...errorResponses() },
      },
    },
    async (request) => {
      const { invoiceId } = request.query;
      const binding = listBinding(request.actor, 'credit_notes', { invoiceId });
      const page = readPageRequest(cursors, request.query, binding);
      const rows = await creditNotes.list(request.actor, { invoiceId }, page);
      return buildPage(cursors, rows, page, binding, (r) => r.creditNote);
    },
  );

  app.get(
    '/v1/credit-notes/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Retrieve a credit note',
        params: IdParams,
        response: { 200: CreditNote, ...errorResponses(404) },
      },
    },
    async (request) => creditNotes.get(request.actor, request.params.id),
  );

  app.post(
    '/v1/credit-notes/:id/void',
    {
      config: write,
      schema: {
        tags,
        summary: 'Void a credit note',
        description:
          'Gives the invoice back exactly what the credit note took (`amountCredited`, `amountRemaining`, `outOfBandAmount`); an invoice the credit note had paid returns to open with `paidAt` cleared (invoice.updated). A void credit note, or one whose invoice is void, is 409 state_invalid.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: NoBody,
        response: { 200: CreditNote, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) => creditNotes.void(write, request.params.id)),
  );

  app.get(
    '/v1/credit-notes/:id/pdf',
    {
      config: read,
      schema: {
        tags,
        summary: 'The credit note as a PDF document',
        description:
          'application/pdf: a PDF/A-3b "Credit note" referring to the invoice it corrects, with its own tax breakdown; rendered once when the credit note was made and served byte-identical ever after (a Factur-X hybrid when its data meet EN 16931).',
        params: IdParams,
        response: {
          200: {
            description: 'The PDF document.',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const { filename, pdf } = await creditNotes.pdf(request.actor, request.params.id);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${filename}"`)
        .send(pdf);
    },
  );

  app.get(
    '/v1/credit-notes/:id/e-invoice',
    {
      config: read,
      schema: {
        tags,
        summary: 'The credit note as an EN 16931 e-invoice',
        description:
          '`format=ubl` (default): a UBL 2.1 CreditNote following Peppol BIS Billing 3.0; `format=cii`: CII D16B type 381. Both refer to the corrected invoice. 409 einvoice_incomplete with `missing` when its data do not meet EN 16931.',
        params: IdParams,
        querystring: EinvoiceQuery,
        response: {
          200: {
            description: 'The e-invoice.',
            content: { 'application/xml': { schema: { type: 'string' } } },
          },
          ...errorResponses(404, 409),
        },
      },
    },
    async (request, reply) => {
      const { filename, xml } = await creditNotes.einvoice(
        request.actor,
        request.params.id,
        request.query.format ?? 'ubl',
      );
      return reply
        .type('application/xml')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(xml);
    },
  );

  app.post(
    '/v1/credit-notes/:id/send',
    {
      config: write,
      schema: {
        tags,
        summary: 'E-mail a credit note with its PDF',
        description:
          "Queues the e-mail to the customer's current address (400 parameter_missing, param customer.email, when it has none), as for invoices: `email` shows it queued; sentAt is set and credit_note.sent emitted once the mail server accepted it. A void credit note is 409 state_invalid.",
        params: IdParams,
        headers: IdempotencyHeaders,
        body: NoBody,
        response: { 200: CreditNote, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) => creditNotes.send(write, request.params.id)),
  );
};
