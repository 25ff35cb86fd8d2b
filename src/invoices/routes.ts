// HTTP for invoices: schema, scope, call the service, shape the reply.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.ts';
import { creditNotesForInvoicePdf } from '../credit-notes/service.ts';
import { sendWrite } from '../http/idempotency.ts';
import { buildPage, listBinding, readPageRequest } from '../paging.ts';
import { errorResponses, IdempotencyHeaders, IdParams, Page } from '../http/schemas.ts';
import {
  DeletedInvoice,
  Invoice,
  InvoiceCreate,
  InvoiceListQuery,
  InvoiceUpdate,
  LineCreate,
  LineParams,
} from './schemas.ts';
import {
  addInvoiceLine,
  createInvoice,
  deleteDraftInvoice,
  getInvoice,
  getInvoicePdf,
  issueInvoice,
  listInvoices,
  markInvoiceUncollectible,
  removeInvoiceLine,
  sendInvoice,
  updateInvoice,
  voidInvoice,
} from './service.ts';

const tags = ['Invoices'];
const write = { scope: 'invoices:write' as const };
const read = { scope: 'invoices:read' as const };
const NoBody = Type.Object({}, { additionalProperties: false });

export function registerInvoiceRoutes(server: FastifyInstance, deps: AppDeps): void {
  const { db, cursors } = deps;
  const app = server.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/invoices',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a draft invoice',
        description:
          'The customer must exist in the same tenant and environment (404 resource_missing, param customerId). `currency` is an ISO 4217 code in lower case; amounts are integers in its minor unit (ISO 4217: eur 2, jpy 0, kwd 3). Give `dueDate` or `daysUntilDue`, not both.',
        headers: IdempotencyHeaders,
        body: InvoiceCreate,
        response: { 201: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 201, (write) => createInvoice(db, write, request.body)),
  );

  app.get(
    '/v1/invoices',
    {
      config: read,
      schema: {
        tags,
        summary: 'List invoices, newest first',
        querystring: InvoiceListQuery,
        response: { 200: Page(Invoice), ...errorResponses() },
      },
    },
    async (request) => {
      const { customerId, status } = request.query;
      const binding = listBinding(request.actor, 'invoices', { customerId, status });
      const page = readPageRequest(cursors, request.query, binding);
      const rows = await listInvoices(db, request.actor, { customerId, status }, page);
      return buildPage(cursors, rows, page, binding, (r) => r.invoice);
    },
  );

  app.get(
    '/v1/invoices/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Retrieve an invoice',
        params: IdParams,
        response: { 200: Invoice, ...errorResponses(404) },
      },
    },
    async (request) => getInvoice(db, request.actor, request.params.id),
  );

  app.patch(
    '/v1/invoices/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Update an invoice',
        description:
          'A draft takes every field (`lines` replaces all lines; `null` clears an optional field; setting `dueDate` clears `daysUntilDue` and the other way round). An issued invoice changes only its `metadata`; any other field is 409 state_invalid.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: InvoiceUpdate,
        response: { 200: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) =>
        updateInvoice(db, write, request.params.id, request.body),
      ),
  );

  app.delete(
    '/v1/invoices/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a draft invoice',
        params: IdParams,
        headers: IdempotencyHeaders,
        response: { 200: DeletedInvoice, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) => deleteDraftInvoice(db, write, request.params.id)),
  );

  app.post(
    '/v1/invoices/:id/lines',
    {
      config: write,
      schema: {
        tags,
        summary: 'Add a line to a draft invoice',
        description: 'Returns the invoice with the new line last. At most 250 lines.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: LineCreate,
        response: { 200: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) =>
        addInvoiceLine(db, write, request.params.id, request.body),
      ),
  );

  app.delete(
    '/v1/invoices/:id/lines/:lineId',
    {
      config: write,
      schema: {
        tags,
        summary: 'Remove a line from a draft invoice',
        params: LineParams,
        headers: IdempotencyHeaders,
        response: { 200: Invoice, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) =>
        removeInvoiceLine(db, write, request.params.id, request.params.lineId),
      ),
  );

  const actions = [
    [
      'issue',
      'Issue a draft',
      'Assigns the next number (gapless per tenant and environment), freezes the customer and the tax breakdown. A total of 0 goes straight to paid.',
      issueInvoice,
    ],
    ['void', 'Void an invoice', 'For open or uncollectible invoices.', voidInvoice],
    [
      'mark-uncollectible',
      'Mark an invoice uncollectible',
      'For open invoices.',
      markInvoiceUncollectible,
    ],
  ] as const;
  for (const [action, summary, description, run] of actions) {
    app.post(
      `/v1/invoices/:id/${action}`,
      {
        config: write,
        schema: {
          tags,
          summary,
          description: `${description} Any other status is 409 state_invalid.`,
          params: IdParams,
          headers: IdempotencyHeaders,
          body: NoBody,
          response: { 200: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
        },
      },
      async (request, reply) =>
        sendWrite(request, reply, 200, (write) => run(db, write, request.params.id)),
    );
  }

  app.post(
    '/v1/invoices/:id/send',
    {
      config: write,
      schema: {
        tags,
        summary: 'E-mail an open invoice with its PDF',
        description:
          "Queues the e-mail to the customer's current address (400 parameter_missing, param customer.email, when it has none); the status does not change. Only open invoices (409 otherwise). The invoice's `email` shows the message queued; the worker hands it to the mail server, retrying with back-off while the server refuses, and sets sentAt and emits invoice.sent once the server accepted it. Without SMTP_URL the message is written to DATA_DIR/outbox/ as an .eml file.",
        params: IdParams,
        headers: IdempotencyHeaders,
        body: NoBody,
        response: { 200: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) => sendInvoice(db, write, request.params.id)),
  );

  app.get(
    '/v1/invoices/:id/pdf',
    {
      config: read,
      schema: {
        tags,
        summary: 'The invoice as a PDF document',
        description:
          'application/pdf. A draft is rendered as a draft, without a number. The credit notes of the invoice that are not void are listed with their number, date, reason and amount.',
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
      const { filename, pdf } = await getInvoicePdf(
        db,
        request.actor,
        request.params.id,
        creditNotesForInvoicePdf,
      );
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${filename}"`)
        .send(pdf);
    },
  );
}
