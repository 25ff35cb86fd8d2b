// Subscriptions: recurring prices billed on their calendar (docs/subscriptions.md).
import type { Operations } from './operations.ts';
import { segment } from './operations.ts';
import type { RequestOptions } from './transport.ts';
import type { Body, Query } from './types.ts';

export function subscriptionsResource(api: Operations) {
  const path = (id: string, action = '') => `/v1/subscriptions/${segment(id)}${action}`;
  return {
    /** Starting now without a trial, the first invoice is made at once (`latestInvoiceId`). */
    create: (body: Body<'createSubscription'>, options?: RequestOptions) =>
      api.call<'createSubscription'>('POST', '/v1/subscriptions', { ...options, body }),
    get: (id: string, options?: RequestOptions) =>
      api.call<'getSubscription'>('GET', path(id), options),
    /** Items (add, change, remove with `deleted: true`) with their proration, and the rest. */
    update: (id: string, body: Body<'updateSubscription'>, options?: RequestOptions) =>
      api.call<'updateSubscription'>('PATCH', path(id), { ...options, body }),
    list: (query?: Query<'listSubscriptions'>) =>
      api.list<'listSubscriptions'>('/v1/subscriptions', query),
    /** The lines the same change would bill, with their totals; changes nothing. */
    previewChange: (
      id: string,
      body: Body<'previewSubscriptionChange'>,
      options?: RequestOptions,
    ) =>
      api.call<'previewSubscriptionChange'>('POST', path(id, '/preview-change'), {
        ...options,
        body,
      }),
    /** What the next boundary would invoice if nothing changed (`id` null). */
    upcomingInvoice: (id: string, options?: RequestOptions) =>
      api.call<'getSubscriptionUpcomingInvoice'>('GET', path(id, '/upcoming-invoice'), options),
    /** At the period's end (default), `now`, or a later instant. */
    cancel: (id: string, body: Body<'cancelSubscription'> = {}, options?: RequestOptions) =>
      api.call<'cancelSubscription'>('POST', path(id, '/cancel'), { ...options, body }),
    pause: (id: string, body: Body<'pauseSubscription'>, options?: RequestOptions) =>
      api.call<'pauseSubscription'>('POST', path(id, '/pause'), { ...options, body }),
    resume: (id: string, options?: RequestOptions) =>
      api.call<'resumeSubscription'>('POST', path(id, '/resume'), options),
  };
}
