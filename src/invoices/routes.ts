// HTTP for invoices: schema, scope, call the service, shape the reply.
import type { RoutePlugin } from '../http/plugin.ts';
import { resourceRoutes } from '../http/resource-routes.ts';
import { apiRoutes } from '../http/routes.ts';
import { errorResponses, NoBody } from '../http/schemas.ts';
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
const writeScope = 'invoices:write';
const readScope = 'invoices:read';
const OTHER_STATUS_REFUSED = `Any other status is 409 state_invalid. ${HOSTED_URL_REPLAY}`;

export const invoiceRoutes: RoutePlugin = async (server, { invoices, cursors }) => {
  const routes = apiRoutes(server, cursors, tags);
  const invoice = resourceRoutes(routes, Invoice);

  invoice.create(
    'POST /v1/invoices',
    writeScope,
    {
      summary: 'Create a draft invoice',
      description:
        'The customer must exist in the same tenant and environment (404 resource_missing, param customerId). `currency` is an ISO 4217 code in lower case; amounts are integers in its minor unit (ISO 4217: eur 2, jpy 0, kwd 3). Give `dueDate` or `daysUntilDue`, not both.',
      body: InvoiceCreate,
    },
    invoices.create,
  );

  invoice.list(
    '/v1/invoices',
    readScope,
    { summary: 'List invoices, newest first', querystring: InvoiceListQuery },
    { list: 'invoices', rows: invoices.list, item: (row) => row.invoice },
  );

  invoice.retrieve(
    '/v1/invoices/:id',
    readScope,
    { summary: 'Retrieve an invoice' },
    invoices.show,
  );

  invoice.update(
    'PATCH /v1/invoices/:id',
    writeScope,
    {
      summary: 'Update an invoice',
      description:
        'A draft takes every field (`lines` replaces all lines; `null` clears an optional field; setting `dueDate` clears `daysUntilDue` and the other way round). An issued invoice changes only its `metadata`; any other field is 409 state_invalid. ' +
        HOSTED_URL_REPLAY,
      body: InvoiceUpdate,
    },
    invoices.update,
  );

  invoice.action(
    'DELETE /v1/invoices/:id',
    writeScope,
    { summary: 'Delete a draft invoice', answer: DeletedInvoice, errors: [404, 409, 422] },
    invoices.deleteDraft,
  );

  invoice.action(
    'POST /v1/invoices/:id/lines',
    writeScope,
    {
      summary: 'Add a line to a draft invoice',
      description: 'Returns the invoice with the new line last. At most 250 lines.',
      body: LineCreate,
    },
    invoices.addLine,
  );

  routes.write(
    'DELETE /v1/invoices/:id/lines/:lineId',
    writeScope,
    {
      summary: 'Remove a line from a draft invoice',
      params: LineParams,
      body: NoBody,
      response: { 200: Invoice, ...errorResponses(404, 409, 422) },
    },
    (write, request) => invoices.removeLine(write, request.params.id, request.params.lineId),
  );

  invoice.action(
    'POST /v1/invoices/:id/issue',
    writeScope,
    {
      summary: 'Issue a draft',
      description: `Assigns the next number (gapless per tenant and environment) and freezes the seller (the settings), the customer and the tax breakdown; the date of supply is the issue date unless the invoice has one or a service period. Its PDF/A-3 and e-invoices are rendered from that frozen data once and never change, and it gets its hosted page (\`hostedInvoiceUrl\`). A total of 0 goes straight to paid. With the setting \`einvoiceRequired\`, a draft whose \`einvoice\` is not ready is 409 einvoice_incomplete (\`missing\`, as the draft shows it) and stays a draft: no number is taken. ${OTHER_STATUS_REFUSED}`,
    },
    invoices.issue,
  );

  invoice.action(
    'POST /v1/invoices/:id/void',
    writeScope,
    {
      summary: 'Void an invoice',
      description: `For open or uncollectible invoices. The hosted page stays and shows the invoice as void. ${OTHER_STATUS_REFUSED}`,
    },
    invoices.void,
  );

  invoice.action(
    'POST /v1/invoices/:id/mark-uncollectible',
    writeScope,
    {
      summary: 'Mark an invoice uncollectible',
      description: `For open invoices. ${OTHER_STATUS_REFUSED}`,
    },
    invoices.markUncollectible,
  );

  invoice.action(
    'POST /v1/invoices/:id/send',
    writeScope,
    {
      summary: 'E-mail an issued invoice with its PDF',
      description:
        "Queues the e-mail to the customer's current address (400 parameter_missing, param customer.email, when it has none); the status does not change. Open, paid and uncollectible invoices (it delivers the record); void invoices and drafts are 409 state_invalid. The message states the invoice's total as the attached PDF shows it; when credit notes or payments changed what is due it names them (the credit notes' PDFs attached) and states the amount still due, or that the invoice is paid. It ends with the link to view the invoice online (the hosted page, which takes no payment). The invoice's `email` shows the message queued; the worker hands it to the mail server, retrying with back-off while the server refuses, and sets sentAt and emits invoice.sent once the server accepted it. Without SMTP_URL the message is written to DATA_DIR/outbox/ as an .eml file. " +
        HOSTED_URL_REPLAY,
    },
    invoices.send,
  );

  invoice.action(
    'POST /v1/invoices/:id/hosted-link',
    writeScope,
    {
      summary: "Replace an invoice's hosted page link",
      description:
        'Makes a new `hostedInvoiceUrl` for an issued invoice (any status but draft: 409 state_invalid) and returns the invoice with it. The old URL stops working at once: for a link that was sent to the wrong address or leaked, or to give a customer a link again after the old one expired. The new link is valid until 120 days after the due date, and at least 120 days from now. ' +
        HOSTED_URL_REPLAY,
    },
    invoices.replaceHostedLink,
  );

  routes.pdf(
    '/v1/invoices/:id/pdf',
    readScope,
    {
      summary: 'The invoice as a PDF document',
      description:
        "application/pdf: a PDF/A-3b document. An issued invoice's PDF is rendered once from the data frozen at issue and served byte-identical ever after (payments and credit notes appear in the JSON, not on the record); when the data meet EN 16931 it is a Factur-X hybrid with its CII XML embedded. A draft is a preview, marked as such, without a number.",
    },
    (actor, id) => invoices.pdf(actor, id),
  );

  routes.einvoice(
    '/v1/invoices/:id/e-invoice',
    readScope,
    {
      summary: 'The issued invoice as an EN 16931 e-invoice',
      description:
        '`format=ubl` (default): UBL 2.1 Invoice following Peppol BIS Billing 3.0; `format=cii`: UN/CEFACT CII D16B following the EN 16931 profile (the XML inside the Factur-X PDF). Rendered once when the invoice is issued and never changed. A draft is 409 state_invalid; an invoice whose data do not meet EN 16931 (seller VAT id, addresses, electronic addresses, …) is 409 einvoice_incomplete with `missing`, the fields to set before issuing the next one (the invoice’s `einvoice` field shows them, and a draft’s before it is issued).',
      querystring: EinvoiceQuery,
    },
    (actor, id, { format }) => invoices.einvoice(actor, id, format ?? 'ubl'),
  );
};
