// The console's reading of webhook deliveries across the tenant's endpoints
// (./webhooks-store.ts). Endpoints are listed, and a delivery retried, through the webhooks
// service, as the API does.
import type { Db } from '../db/pool.ts';
import { formatDate } from '../documents/i18n.ts';
import type { DocumentLocale } from '../documents/model.ts';
import { ResourceMissingError } from '../errors.ts';
import type { PagePosition } from '../paging.ts';
import { localDate } from '../subscriptions/calendar.ts';
import type { TenantScope } from '../tenancy.ts';
import { selectDeliveryWithEndpoint, selectRecentDeliveries } from './webhooks-store.ts';

export function consoleDeliveries(db: Db) {
  return {
    recent: (scope: TenantScope, after: PagePosition | null, limit: number) =>
      selectRecentDeliveries(db, scope, after, limit),
    async get(scope: TenantScope, id: string) {
      const delivery = await selectDeliveryWithEndpoint(db, scope, id);
      if (!delivery) throw new ResourceMissingError('webhook delivery', id);
      return delivery;
    },
  };
}

const clockTimes = new Map<string, Intl.DateTimeFormat>();

/** An instant as the local day (in the language) and time of day (24 h) in `timeZone`. */
export function localDateTime(at: Date, timeZone: string, lang: DocumentLocale): string {
  let time = clockTimes.get(timeZone);
  if (!time) {
    time = new Intl.DateTimeFormat('en-GB', { timeZone, timeStyle: 'medium', hourCycle: 'h23' });
    clockTimes.set(timeZone, time);
  }
  return `${formatDate(localDate(at, timeZone), lang)} ${time.format(at)}`;
}
