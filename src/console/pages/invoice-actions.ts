// An invoice's actions in the console (docs/console.md, "Invoices"): issue a draft, void, send
// by e-mail, record a payment, make a credit note. Each calls the service the API's route calls,
// with the user as the actor and the form's key for idempotency, and returns to the invoice.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Composition } from '../../composition.ts';
import type { WriteRequest, Written } from '../../db/unit-of-work.ts';
import { checkedDate } from '../../dates.ts';
import { ParameterInvalidError, ResourceMissingError } from '../../errors.ts';
import { CREDIT_NOTE_REASONS } from '../../credit-notes/schemas.ts';
import { PAYMENT_METHODS } from '../../payments/schemas.ts';
import { localDate } from '../../subscriptions/calendar.ts';
import { amountOf } from '../invoices.ts';
import { consoleRoute, consoleWrite, sessionOf } from '../page.ts';
import { InvoiceParams } from './invoices.ts';

const Form = <T extends Record<string, TSchema>>(fields: T) =>
  Type.Object({
    _csrf: Type.Optional(Type.String()),
    idempotencyKey: Type.String({ minLength: 1, maxLength: 100 }),
    ...fields,
  });
const ActionForm = Form({});
const PaymentForm = Form({
  amount: Type.String({ maxLength: 30 }),
  date: Type.String({ maxLength: 10 }),
  method: Type.Union(PAYMENT_METHODS.map((m) => Type.Literal(m))),
  reference: Type.Optional(Type.String({ maxLength: 500 })),
});
const CreditForm = Form({
  amount: Type.String({ maxLength: 30 }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  invoiceLineId: Type.Optional(Type.String({ maxLength: 100 })),
  reason: Type.Optional(
    Type.Union([Type.Literal(''), ...CREDIT_NOTE_REASONS.map((r) => Type.Literal(r))]),
  ),
});

export async function invoiceActionPages(app: FastifyInstance, deps: Composition) {
  const { invoices, payments, creditNotes, consoleInvoices, clock } = deps;

  /** A POST of the invoice's page: `act` with the write request; back to the invoice. */
  function action<S extends TSchema>(
    path: string,
    body: S,
    act: (
      write: WriteRequest,
      id: string,
      form: Static<S>,
      request: FastifyRequest,
    ) => Promise<Written<unknown>>,
  ) {
    app.post(
      `/invoices/:id/${path}`,
      consoleRoute('invoices:write', { params: InvoiceParams, body }),
      async (request, reply) => {
        const { id } = request.params as Static<typeof InvoiceParams>;
        const form = request.body as Static<S> & { idempotencyKey: string };
        const write = consoleWrite(request, form, () => `/console/invoices/${id}`);
        const written = await act(write, id, form, request);
        return reply.code(303).redirect(write.location(written));
      },
    );
  }

  /** The invoice's currency (to read the form's amounts in), or 404. */
  async function currencyOf(request: FastifyRequest, id: string): Promise<string> {
    const [row] = (await consoleInvoices.named(sessionOf(request).actor, id)).filter(
      (r) => r.id === id,
    );
    if (!row) throw new ResourceMissingError('invoice', id);
    return row.currency;
  }

  action('issue', ActionForm, (write, id) => invoices.issue(write, id));
  action('void', ActionForm, (write, id) => invoices.void(write, id));
  action('send', ActionForm, (write, id) => invoices.send(write, id));

  action('payments', PaymentForm, async (write, id, form, request) => {
    const amount = amountOf(form.amount, await currencyOf(request, id));
    // A day of the tenant's calendar: today is now; another day is noon UTC of that date
    // (the same calendar day in every zone from UTC−12 to UTC+11).
    const today = localDate(clock.now(), request.console.timeZone);
    const date = form.date.trim() && checkedDate(form.date.trim(), 'date');
    return payments.create(write, id, {
      amount,
      method: form.method,
      ...(form.reference?.trim() ? { reference: form.reference.trim() } : {}),
      ...(date && date !== today ? { receivedAt: `${date}T12:00:00Z` } : {}),
    });
  });

  action('credit-notes', CreditForm, async (write, id, form, request) => {
    const invoice = await invoices.show(sessionOf(request).actor, id);
    const amount = amountOf(form.amount, invoice.currency);
    const lineId = form.invoiceLineId?.trim() || undefined;
    const line = invoice.lines.find((l) => l.id === lineId);
    if (lineId && !line) {
      throw new ParameterInvalidError('invoiceLineId', `The invoice has no line ${lineId}.`);
    }
    // One line when a description or an invoice line is given (the line's description by
    // default); otherwise the amount, split over the invoice's tax breakdown.
    const description = form.description?.trim() || line?.description;
    return creditNotes.create(write, {
      invoiceId: id,
      ...(description
        ? { lines: [{ description, amount, ...(lineId ? { invoiceLineId: lineId } : {}) }] }
        : { amount }),
      ...(form.reason ? { reason: form.reason } : {}),
    });
  });
}
