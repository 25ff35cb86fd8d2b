// HTTP for subscriptions: schema, scope, call the service, shape the reply.
import type { RoutePlugin } from '../http/plugin.ts';
import { resourceRoutes } from '../http/resource-routes.ts';
import { apiRoutes } from '../http/routes.ts';
import { errorResponses, IdParams } from '../http/schemas.ts';
import {
  ChangePreview,
  Subscription,
  SubscriptionCancel,
  SubscriptionCreate,
  SubscriptionListQuery,
  SubscriptionPause,
  SubscriptionUpdate,
  SubscriptionUsage,
  UpcomingInvoice,
} from './schemas.ts';

const ACTION_ERRORS = [404, 409, 413, 415];

export const subscriptionRoutes: RoutePlugin = async (server, { subscriptions, cursors }) => {
  const routes = apiRoutes(server, cursors, ['Subscriptions']);
  const subscription = resourceRoutes(routes, Subscription);

  subscription.create(
    'POST /v1/subscriptions',
    'subscriptions:write',
    {
      summary: 'Create a subscription',
      description:
        'Items are recurring prices of one currency and one interval. Starting now without a trial, the first invoice (reason `subscription_create`) is made in the same transaction (`latestInvoiceId`); a later `startAt` makes it `scheduled`, a trial `trialing`. Periods follow the anchor on the customer’s time zone (docs/subscriptions.md).',
      body: SubscriptionCreate,
    },
    subscriptions.create,
  );

  subscription.retrieve(
    '/v1/subscriptions/:id',
    'subscriptions:read',
    { summary: 'Retrieve a subscription' },
    subscriptions.get,
  );

  subscription.list(
    '/v1/subscriptions',
    'subscriptions:read',
    { summary: 'List subscriptions, newest first', querystring: SubscriptionListQuery },
    { list: 'subscriptions', rows: subscriptions.list, item: (row) => row.view },
  );

  subscription.update(
    'PATCH /v1/subscriptions/:id',
    'subscriptions:write',
    {
      summary: 'Change a subscription',
      description:
        'Items (add; change `priceId` or `quantity`; remove with `deleted: true`) with `prorationBehavior` (`create_prorations`: pending lines on the next invoice; `always_invoice`: an invoice now; `none`), at `prorationDate` (default now, within the current period). A price of another interval changes the interval: the period ends at the change and a new one starts there, invoiced at once. Also `trialEnd` (while trialing), `cancelAtPeriodEnd` (true or false: undo until the period ends), `description`, `metadata`.',
      body: SubscriptionUpdate,
    },
    subscriptions.update,
  );

  routes.read(
    'POST /v1/subscriptions/:id/preview-change',
    'subscriptions:read',
    {
      summary: 'Preview a change',
      description:
        'Takes the body of PATCH and answers the lines it would bill, with their subtotal and total; changes nothing.',
      params: IdParams,
      body: SubscriptionUpdate,
      response: { 200: ChangePreview, ...errorResponses(404, 409, 413, 415) },
    },
    (request) => subscriptions.previewChange(request.actor, request.params.id, request.body),
  );

  routes.read(
    '/v1/subscriptions/:id/upcoming-invoice',
    'subscriptions:read',
    {
      summary: 'The upcoming invoice',
      description:
        'What the next boundary would invoice if nothing changed (`id` null), computed by the same code as the billing run.',
      params: IdParams,
      response: { 200: UpcomingInvoice, ...errorResponses(404, 409) },
    },
    (request) => subscriptions.upcoming(request.actor, request.params.id),
  );

  routes.read(
    '/v1/subscriptions/:id/usage',
    'usage:read',
    {
      summary: 'The current period’s usage',
      description:
        'Each metered item’s meter aggregated over the customer’s events of the current period so far, as an exact decimal string.',
      params: IdParams,
      response: { 200: SubscriptionUsage, ...errorResponses(404) },
    },
    (request) => subscriptions.usage(request.actor, request.params.id),
  );

  subscription.action(
    'POST /v1/subscriptions/:id/cancel',
    'subscriptions:write',
    {
      summary: 'Cancel a subscription',
      description:
        '`at`: `period_end` (default; undo with PATCH `cancelAtPeriodEnd: false`), `now`, or a later instant. At the end the subscription is `canceled` with a last invoice (reason `subscription_cancel`) of pending prorations and, with `prorate`, the credit for unused time, unless it would be empty or `invoiceNow` is false.',
      body: SubscriptionCancel,
      errors: ACTION_ERRORS,
    },
    subscriptions.cancel,
  );

  subscription.action(
    'POST /v1/subscriptions/:id/pause',
    'subscriptions:write',
    {
      summary: 'Pause a subscription',
      description:
        'Invoices are still made on the calendar, then voided, kept as drafts or marked uncollectible (`behavior`), until `resume` or `resumesAt`.',
      body: SubscriptionPause,
      errors: ACTION_ERRORS,
    },
    subscriptions.pause,
  );

  subscription.action(
    'POST /v1/subscriptions/:id/resume',
    'subscriptions:write',
    { summary: 'Resume a paused subscription', errors: ACTION_ERRORS },
    subscriptions.resume,
  );
};
