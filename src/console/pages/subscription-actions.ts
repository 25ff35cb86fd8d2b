// The actions of a subscription's page (docs/console.md, "Subscriptions"): change an item's
// quantity or price, cancel (at the period's end or now), undo a cancellation at the period's
// end, pause and resume. Each calls the subscriptions service as the API does (PATCH, cancel,
// pause, resume), with the user as the actor and the form's key making it idempotent; the
// proration behaviour is the service's default.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Composition } from '../../composition.ts';
import type { WriteRequest, Written } from '../../db/unit-of-work.ts';
import { ParameterInvalidError } from '../../errors.ts';
import type { ItemChange, Subscription } from '../../subscriptions/schemas.ts';
import { consoleRoute, consoleWrite } from '../page.ts';

const Params = Type.Object({ id: Type.String({ maxLength: 100 }) });
const formOf = <T extends Record<string, TSchema>>(fields: T) =>
  Type.Object({
    _csrf: Type.Optional(Type.String()),
    idempotencyKey: Type.String({ minLength: 1, maxLength: 100 }),
    ...fields,
  });
const ChangeForm = formOf({
  itemId: Type.String({ minLength: 1, maxLength: 100 }),
  priceId: Type.Optional(Type.String({ maxLength: 100 })),
  quantity: Type.Optional(Type.String({ maxLength: 12 })),
});
const CancelForm = formOf({ at: Type.Union([Type.Literal('period_end'), Type.Literal('now')]) });
const PauseForm = formOf({
  behavior: Type.Union([
    Type.Literal('void'),
    Type.Literal('keep_as_draft'),
    Type.Literal('mark_uncollectible'),
  ]),
});
const PlainForm = formOf({});

/** The item change a form asks for: a new price, a new quantity, or both. */
function itemChange(form: Static<typeof ChangeForm>): ItemChange {
  const change: ItemChange = { id: form.itemId };
  if (form.priceId) change.priceId = form.priceId;
  const quantity = form.quantity?.trim() ?? '';
  if (quantity !== '') {
    if (!/^\d{1,10}$/.test(quantity) || Number(quantity) > 1_000_000_000) {
      throw new ParameterInvalidError('quantity', 'The quantity is a whole number from 0.');
    }
    change.quantity = Number(quantity);
  }
  if (change.priceId === undefined && change.quantity === undefined) {
    throw new ParameterInvalidError('quantity', 'Give a new quantity or choose another price.');
  }
  return change;
}

export async function subscriptionActions(app: FastifyInstance, deps: Composition) {
  const { subscriptions } = deps;

  /** A POST /subscriptions/:id/<action> that calls the service and goes back to the page. */
  function action<F extends TSchema>(
    name: string,
    form: F,
    run: (write: WriteRequest, id: string, form: Static<F>) => Promise<Written<Subscription>>,
  ) {
    app.post(
      `/subscriptions/:id/${name}`,
      consoleRoute('subscriptions:write', { params: Params, body: form }),
      async (request: FastifyRequest, reply: FastifyReply) => {
        const { id } = request.params as Static<typeof Params>;
        const body = request.body as Static<F> & { idempotencyKey: string };
        const write = consoleWrite(
          request,
          body,
          (s: Subscription) => `/console/subscriptions/${s.id}`,
        );
        const written = await run(write, id, body);
        return reply.code(303).redirect(write.location(written));
      },
    );
  }

  action('change', ChangeForm, (write, id, form) =>
    subscriptions.update(write, id, { items: [itemChange(form)] }),
  );
  action('cancel', CancelForm, (write, id, form) =>
    subscriptions.cancel(write, id, { at: form.at }),
  );
  action('keep', PlainForm, (write, id) =>
    subscriptions.update(write, id, { cancelAtPeriodEnd: false }),
  );
  action('pause', PauseForm, (write, id, form) =>
    subscriptions.pause(write, id, { behavior: form.behavior }),
  );
  action('resume', PlainForm, (write, id) => subscriptions.resume(write, id));
}
