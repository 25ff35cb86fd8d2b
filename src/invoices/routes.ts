// HTTP for invoices: schema, scope, call the service, shape the reply.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RoutePlugin } from '../http/plugin.ts';
import type { WriteRequest } from '../db/unit-of-work.ts';
import { sendWrite } from '../http/idempotency.ts';
import { buildPage, listBinding, readPageRequest } from '../paging.ts';
import { errorResponses, IdempotencyHeaders, IdParams, NoBody, Page } from '../http/schemas.ts';
import {
  DeletedInvoice,
  EinvoiceQuery,
  HOSTED_URL_REPLAY,
  Invoice,
  InvoiceListQuery,
  LineParams,
} from './schemas.ts';
import { InvoiceCreate, InvoiceUpdate, LineCreate } from './draft-schemas.ts';

const tags = ['Invoices'];
const write = { scope: 'invoices:write' as const };
const read = { scope: 'invoices:read' as const };

export const invoiceRoutes: RoutePlugin = async (server, { invoices, cursors }) => {
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
      sendWrite(request, reply, 201, (write) => invoices.create(write, request.body)),
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
      const rows = await invoices.list(request.actor, { customerId, status }, page);
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
    async (request) => invoices.show(request.actor, request.params.id),
  );

  app.patch(
    '/v1/invoices/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Update an invoice',
        description:
          'A draft takes every field (`lines` replaces all lines; `null` clears an optional field; setting `dueDate` clears `daysUntilDue` and the other way round). An issued invoice changes only its `metadata`; any other field is 409 state_invalid. ' +
          HOSTED_URL_REPLAY,
        params: IdParams,
        headers: IdempotencyHeaders,
        body: InvoiceUpdate,
        response: { 200: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) =>
        invoices.update(write, request.params.id, request.body),
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
        body: NoBody,
        response: { 200: DeletedInvoice, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) => invoices.deleteDraft(write, request.params.id)),
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
        invoices.addLine(write, request.params.id, request.body),
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
        body: NoBody,
        response: { 200: Invoice, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) =>
        invoices.removeLine(write, request.params.id, request.params.lineId),
      ),
  );

  const actions = [
    [
      'issue',
      'Issue a draft',
      'Assigns the next number (gapless per tenant and environment) and freezes the seller (the settings), the customer and the tax breakdown; the date of supply is the issue date unless the invoice has one or a service period. Its PDF/A-3 and e-invoices are rendered from that frozen data once and never change, and it gets its hosted page (`hostedInvoiceUrl`). A total of 0 goes straight to paid. With the setting `einvoiceRequired`, a draft whose `einvoice` is not ready is 409 einvoice_incomplete (`missing`, as the draft shows it) and stays a draft: no number is taken.',
      (write: WriteRequest, id: string) => invoices.issue(write, id),
    ],
    [
      'void',
      'Void an invoice',
      'For open or uncollectible invoices. The hosted page stays and shows the invoice as void.',
      (write: WriteRequest, id: string) => invoices.void(write, id),
    ],
    [
      'mark-uncollectible',
      'Mark an invoice uncollectible',
      'For open invoices.',
      (write: WriteRequest, id: string) => invoices.markUncollectible(write, id),
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
          description: `${description} Any other status is 409 state_invalid. ${HOSTED_URL_REPLAY}`,
          params: IdParams,
          headers: IdempotencyHeaders,
          body: NoBody,
          response: { 200: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
        },
      },
      async (request, reply) =>
        sendWrite(request, reply, 200, (write) => run(write, request.params.id)),
    );
  }

  app.post(
    '/v1/invoices/:id/send',
    {
      config: write,
      schema: {
        tags,
        summary: 'E-mail an issued invoice with its PDF',
        description:
          "Queues the e-mail to the customer's current address (400 parameter_missing, param customer.email, when it has none); the status does not change. Open, paid and uncollectible invoices (it delivers the record); void invoices and drafts are 409 state_invalid. The message states the invoice's total as the attached PDF shows it; when credit notes or payments changed what is due it names them (the credit notes' PDFs attached) and states the amount still due, or that the invoice is paid. It ends with the link to view the invoice online (the hosted page, which takes no payment). The invoice's `email` shows the message queued; the worker hands it to the mail server, retrying with back-off while the server refuses, and sets sentAt and emits invoice.sent once the server accepted it. Without SMTP_URL the message is written to DATA_DIR/outbox/ as an .eml file. " +
          HOSTED_URL_REPLAY,
        params: IdParams,
        headers: IdempotencyHeaders,
        body: NoBody,
        response: { 200: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) => invoices.send(write, request.params.id)),
  );

  app.post(
    '/v1/invoices/:id/hosted-link',
    {
      config: write,
      schema: {
        tags,
        summary: "Replace an invoice's hosted page link",
        description:
          'Makes a new `hostedInvoiceUrl` for an issued invoice (any status but draft: 409 state_invalid) and returns the invoice with it. The old URL stops working at once: for a link that was sent to the wrong address or leaked, or to give a customer a link again after the old one expired. The new link is valid until 120 days after the due date, and at least 120 days from now. ' +
          HOSTED_URL_REPLAY,
        params: IdParams,
        headers: IdempotencyHeaders,
        body: NoBody,
        response: { 200: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) =>
        invoices.replaceHostedLink(write, request.params.id),
      ),
  );

  app.get(
    '/v1/invoices/:id/pdf',
    {
      config: read,
      schema: {
        tags,
        summary: 'The invoice as a PDF document',
        description:
          "application/pdf: a PDF/A-3b document. An issued invoice's PDF is rendered once from the data frozen at issue and served byte-identical ever after (payments and credit notes appear in the JSON, not on the record); when the data meet EN 16931 it is a Factur-X hybrid with its CII XML embedded. A draft is a preview, marked as such, without a number.",
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
      const { filename, pdf } = await invoices.pdf(request.actor, request.params.id);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${filename}"`)
        .send(pdf);
    },
  );

  app.get(
    '/v1/invoices/:id/e-invoice',
    {
      config: read,
      schema: {
        tags,
        summary: 'The issued invoice as an EN 16931 e-invoice',
        description:
          '`format=ubl` (default): UBL 2.1 Invoice following Peppol BIS Billing 3.0; `format=cii`: UN/CEFACT CII D16B following the EN 16931 profile (the XML inside the Factur-X PDF). Rendered once when the invoice is issued and never changed. A draft is 409 state_invalid; an invoice whose data do not meet EN 16931 (seller VAT id, addresses, electronic addresses, …) is 409 einvoice_incomplete with `missing`, the fields to set before issuing the next one (the invoice’s `einvoice` field shows them, and a draft’s before it is issued).',
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
      const format = request.query.format ?? 'ubl';
      const { filename, xml } = await invoices.einvoice(request.actor, request.params.id, format);
      return reply
        .type('application/xml')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(xml);
    },
  );
};
