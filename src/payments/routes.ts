// HTTP for payments: schema, scope, call the service, shape the reply.
import type { RoutePlugin } from '../http/plugin.ts';
import { resourceRoutes } from '../http/resource-routes.ts';
import { apiRoutes } from '../http/routes.ts';
import { errorResponses, IdParams } from '../http/schemas.ts';
import { HOSTED_URL_REPLAY, Invoice } from '../invoices/schemas.ts';
import {
  InvoicePay,
  Payment,
  PaymentCreate,
  PaymentListQuery,
  RecordedPayment,
} from './schemas.ts';

const tags = ['Payments'];
const writeScope = 'invoices:write';
const readScope = 'invoices:read';

export const paymentRoutes: RoutePlugin = async (server, { payments, cursors }) => {
  const routes = apiRoutes(server, cursors, tags);
  const payment = resourceRoutes(routes, Payment);

  payment.action(
    'POST /v1/invoices/:id/payments',
    writeScope,
    {
      summary: 'Record a payment of an invoice',
      description:
        'A payment received outside the API (a transfer, a card, cash…) for an open or uncollectible invoice (409 state_invalid otherwise). `amount` is more than 0 and at most the invoice’s amountRemaining (400 parameter_invalid, param amount). Partial payments add up; the payment that leaves nothing to pay makes the invoice paid. Events: payment.created, then invoice.paid or invoice.updated. An invoice takes at most 100 payments (then 409). The answer is the payment with `invoice`: the invoice’s id, its `status` and its `amountRemaining` after this payment (only in this answer and its idempotent replays; the payment as read later and in events has no `invoice`).',
      body: PaymentCreate,
      status: 201,
      answer: RecordedPayment,
    },
    payments.create,
  );

  routes.write(
    'POST /v1/invoices/:id/pay',
    writeScope,
    {
      tags: ['Invoices'],
      summary: 'Pay the whole remainder of an invoice',
      description:
        'Records a payment of the whole amountRemaining, received outside the API (payment.created, invoice.paid), and returns the invoice, now paid. The body is optional: `method` (default `other`), `reference` and `receivedAt` (default: now) follow the rules of POST /v1/invoices/{id}/payments. For open or uncollectible invoices; any other status is 409 state_invalid. ' +
        HOSTED_URL_REPLAY,
      params: IdParams,
      body: InvoicePay,
      response: { 200: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
    },
    (write, request) => payments.payInvoice(write, request.params.id, request.body),
  );

  payment.list(
    '/v1/payments',
    readScope,
    {
      summary: 'List payments, newest first',
      description: 'Void payments included (status void).',
      querystring: PaymentListQuery,
    },
    { list: 'payments', rows: payments.list, item: payments.fromRow },
  );

  payment.retrieve('/v1/payments/:id', readScope, { summary: 'Retrieve a payment' }, payments.get);

  payment.action(
    'POST /v1/payments/:id/void',
    writeScope,
    {
      summary: 'Void a payment',
      description:
        'For a payment that did not hold (a bounced transfer, a charge-back): the invoice’s amountPaid drops by its amount and a paid invoice returns to open with paidAt cleared (payment.voided, invoice.updated). A void payment, or one of a void invoice, is 409 state_invalid.',
    },
    payments.void,
  );
};
