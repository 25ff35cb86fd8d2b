// What the console's subscription pages show of a subscription's calendar and catalogue:
// instants as the local days of the subscription's time zone (a period's end as the day of
// its last second, as the documents print it), and a price as its reader knows it.
import type { Price } from '../catalog/schemas.ts';
import { formatAmount, formatDate } from '../documents/i18n.ts';
import type { DocumentLocale } from '../documents/model.ts';
import { localDate } from '../subscriptions/calendar.ts';
import type { Translate } from './views.ts';

/** The local day of an instant, in the language; '—' for none. */
export function localDay(iso: string | null, timeZone: string, lang: DocumentLocale): string {
  return iso === null ? '—' : formatDate(localDate(new Date(iso), timeZone), lang);
}

/** A period [start, end) as its first and last local day. */
export function localPeriod(
  period: { start: string; end: string },
  timeZone: string,
  lang: DocumentLocale,
): string {
  const lastSecond = new Date(Date.parse(period.end) - 1000).toISOString();
  return `${localDay(period.start, timeZone, lang)} – ${localDay(lastSecond, timeZone, lang)}`;
}

/** A recurring price: "Pro plan · Seats — €30.00 / month" (product, nickname, terms). */
export function priceLabel(
  price: Pick<Price, 'id' | 'nickname' | 'currency' | 'unitAmount' | 'recurring'>,
  productName: string | undefined,
  lang: DocumentLocale,
  t: Translate,
): string {
  const name = [productName, price.nickname].filter(Boolean).join(' · ');
  const every = price.recurring
    ? t(`console.subscriptions.every.${price.recurring.interval}`, {
        count: price.recurring.intervalCount,
      })
    : '';
  const amount =
    price.unitAmount === null ? '' : formatAmount(price.unitAmount, price.currency, lang);
  const terms = amount ? `${amount} / ${every}` : every;
  return name ? `${name} — ${terms}` : terms || price.id;
}
