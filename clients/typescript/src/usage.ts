// Meters and usage events: what usage is measured, the events that report it, and summaries of
// a customer's usage (docs/usage.md).
import type { Operations } from './operations.ts';
import { segment } from './operations.ts';
import type { RequestOptions } from './transport.ts';
import type { Body, Query } from './types.ts';

export function metersResource(api: Operations) {
  const path = (id: string, action = '') => `/v1/meters/${segment(id)}${action}`;
  return {
    /** `valueProperty` for every aggregation but `count`. */
    create: (body: Body<'createMeter'>, options?: RequestOptions) =>
      api.call<'createMeter'>('POST', '/v1/meters', { ...options, body }),
    get: (id: string, options?: RequestOptions) => api.call<'getMeter'>('GET', path(id), options),
    /** Only `displayName` and `status`: what a meter measures never changes. */
    update: (id: string, body: Body<'updateMeter'>, options?: RequestOptions) =>
      api.call<'updateMeter'>('PATCH', path(id), { ...options, body }),
    list: (query?: Query<'listMeters'>) => api.list<'listMeters'>('/v1/meters', query),
    /**
     * The meter's aggregation of one customer's usage over [`from`, `to`): one bucket, or hour
     * or day buckets of the customer's time zone. Values are exact decimal strings.
     */
    summaries: (id: string, query: Query<'getMeterSummaries'>, options?: RequestOptions) =>
      api.call<'getMeterSummaries'>('GET', path(id, '/summaries'), { ...options, query }),
  };
}

export function usageEventsResource(api: Operations) {
  return {
    /**
     * Sends 1–1,000 events; the answer has each one's outcome in order (`accepted`,
     * `duplicate`, or `error`). Each id counts once, so sending a batch again after a failure is
     * always safe.
     */
    send: (events: Body<'createUsageEvent'>['events'], options?: RequestOptions) =>
      api.call<'createUsageEvent'>('POST', '/v1/usage-events', { ...options, body: { events } }),
  };
}
