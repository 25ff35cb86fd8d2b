// HTTP for credit-notes: schema, scope, call the service, shape the reply.
import type { RoutePlugin } from '../http/plugin.ts';
import { resourceRoutes } from '../http/resource-routes.ts';
import { apiRoutes } from '../http/routes.ts';
import { EinvoiceQuery } from '../invoices/schemas.ts';
import { CreditNote, CreditNoteCreate, CreditNoteListQuery } from './schemas.ts';

const tags = ['Credit notes'];
const writeScope = 'invoices:write';
const readScope = 'invoices:read';

export const creditNoteRoutes: RoutePlugin = async (server, { creditNotes, cursors }) => {
  const routes = apiRoutes(server, cursors, tags);
  const creditNote = resourceRoutes(routes, CreditNote);

  creditNote.create(
    'POST /v1/credit-notes',
    writeScope,
    {
      summary: 'Credit an open or paid invoice',
      description:
        'Give `amount` or `lines`, not both. Every amount is gross (tax included) in the invoice’s minor unit: `amount`, and a line without `invoiceLineId`, is split over the invoice’s frozen tax breakdown in proportion to each part (largest remainder); a line with `invoiceLineId` is split over that line’s own tax rates and is at most what the line was charged, tax included, less earlier credits of it. The credit note takes the invoice’s currency (a `currency` field is refused as unknown). Together the invoice’s credit notes that are not void never exceed its total: beyond what is left is 400 parameter_invalid naming `amount` or the line. On an open invoice the credit lowers `amountRemaining` (paid when it reaches 0); on a paid one it is recorded as refunded outside the API (`outOfBandAmount`). Other invoice statuses: 409 state_invalid; an invoice of another tenant or environment: 404 resource_missing (param invoiceId). The number (CN-000001…) is gapless per tenant and environment.',
      body: CreditNoteCreate,
    },
    creditNotes.create,
  );

  creditNote.list(
    '/v1/credit-notes',
    readScope,
    { summary: 'List credit notes, newest first', querystring: CreditNoteListQuery },
    { list: 'credit_notes', rows: creditNotes.list, item: (row) => row.creditNote },
  );

  creditNote.retrieve(
    '/v1/credit-notes/:id',
    readScope,
    { summary: 'Retrieve a credit note' },
    creditNotes.get,
  );

  creditNote.action(
    'POST /v1/credit-notes/:id/void',
    writeScope,
    {
      summary: 'Void a credit note',
      description:
        'Gives the invoice back exactly what the credit note took (`amountCredited`, `amountRemaining`, `outOfBandAmount`); an invoice the credit note had paid returns to open with `paidAt` cleared (invoice.updated). A void credit note, or one whose invoice is void, is 409 state_invalid.',
    },
    creditNotes.void,
  );

  routes.pdf(
    '/v1/credit-notes/:id/pdf',
    readScope,
    {
      summary: 'The credit note as a PDF document',
      description:
        'application/pdf: a PDF/A-3b "Credit note" referring to the invoice it corrects, with its own tax breakdown; rendered once when the credit note was made and served byte-identical ever after (a Factur-X hybrid when its data meet EN 16931).',
    },
    (actor, id) => creditNotes.pdf(actor, id),
  );

  routes.einvoice(
    '/v1/credit-notes/:id/e-invoice',
    readScope,
    {
      summary: 'The credit note as an EN 16931 e-invoice',
      description:
        '`format=ubl` (default): a UBL 2.1 CreditNote following Peppol BIS Billing 3.0; `format=cii`: CII D16B type 381. Both refer to the corrected invoice. 409 einvoice_incomplete with `missing` when its data do not meet EN 16931.',
      querystring: EinvoiceQuery,
    },
    (actor, id, { format }) => creditNotes.einvoice(actor, id, format ?? 'ubl'),
  );

  creditNote.action(
    'POST /v1/credit-notes/:id/send',
    writeScope,
    {
      summary: 'E-mail a credit note with its PDF',
      description:
        "Queues the e-mail to the customer's current address (400 parameter_missing, param customer.email, when it has none), as for invoices: `email` shows it queued; sentAt is set and credit_note.sent emitted once the mail server accepted it. A void credit note is 409 state_invalid.",
    },
    creditNotes.send,
  );
};
