// HTTP for payments: schema, scope, call the service, shape the reply.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RoutePlugin } from '../http/plugin.ts';
import { sendWrite } from '../http/idempotency.ts';
import { errorResponses, IdempotencyHeaders, IdParams, NoBody, Page } from '../http/schemas.ts';
import { HOSTED_URL_REPLAY, Invoice } from '../invoices/schemas.ts';
import { buildPage, listBinding, readPageRequest } from '../paging.ts';
import {
  InvoicePay,
  Payment,
  PaymentCreate,
  PaymentListQuery,
  RecordedPayment,
} from './schemas.ts';

const tags = ['Payments'];
const write = { scope: 'invoices:write' as const };
const read = { scope: 'invoices:read' as const };

export const paymentRoutes: RoutePlugin = async (server, { payments, cursors }) => {
  const app = server.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/invoices/:id/payments',
    {
      config: write,
      schema: {
        tags,
        summary: 'Record a payment of an invoice',
        description:
          'A payment received outside the API (a transfer, a card, cash…) for an open or uncollectible invoice (409 state_invalid otherwise). `amount` is more than 0 and at most the invoice’s amountRemaining (400 parameter_invalid, param amount). Partial payments add up; the payment that leaves nothing to pay makes the invoice paid. Events: payment.created, then invoice.paid or invoice.updated. An invoice takes at most 100 payments (then 409). The answer is the payment with `invoice`: the invoice’s id, its `status` and its `amountRemaining` after this payment (only in this answer and its idempotent replays; the payment as read later and in events has no `invoice`).',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: PaymentCreate,
        response: { 201: RecordedPayment, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 201, (write) =>
        payments.create(write, request.params.id, request.body),
      ),
  );

  app.post(
    '/v1/invoices/:id/pay',
    {
      config: write,
      schema: {
        tags: ['Invoices'],
        summary: 'Pay the whole remainder of an invoice',
        description:
          'Records a payment of the whole amountRemaining, received outside the API (payment.created, invoice.paid), and returns the invoice, now paid. The body is optional: `method` (default `other`), `reference` and `receivedAt` (default: now) follow the rules of POST /v1/invoices/{id}/payments. For open or uncollectible invoices; any other status is 409 state_invalid. ' +
          HOSTED_URL_REPLAY,
        params: IdParams,
        headers: IdempotencyHeaders,
        body: InvoicePay,
        response: { 200: Invoice, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) =>
        payments.payInvoice(write, request.params.id, request.body),
      ),
  );

  app.get(
    '/v1/payments',
    {
      config: read,
      schema: {
        tags,
        summary: 'List payments, newest first',
        description: 'Void payments included (status void).',
        querystring: PaymentListQuery,
        response: { 200: Page(Payment), ...errorResponses() },
      },
    },
    async (request) => {
      const { invoiceId, customerId } = request.query;
      const binding = listBinding(request.actor, 'payments', { invoiceId, customerId });
      const page = readPageRequest(cursors, request.query, binding);
      const rows = await payments.list(request.actor, { invoiceId, customerId }, page);
      return buildPage(cursors, rows, page, binding, payments.fromRow);
    },
  );

  app.get(
    '/v1/payments/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Retrieve a payment',
        params: IdParams,
        response: { 200: Payment, ...errorResponses(404) },
      },
    },
    async (request) => payments.get(request.actor, request.params.id),
  );

  app.post(
    '/v1/payments/:id/void',
    {
      config: write,
      schema: {
        tags,
        summary: 'Void a payment',
        description:
          'For a payment that did not hold (a bounced transfer, a charge-back): the invoice’s amountPaid drops by its amount and a paid invoice returns to open with paidAt cleared (payment.voided, invoice.updated). A void payment, or one of a void invoice, is 409 state_invalid.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: NoBody,
        response: { 200: Payment, ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) =>
      sendWrite(request, reply, 200, (write) => payments.void(write, request.params.id)),
  );
};
