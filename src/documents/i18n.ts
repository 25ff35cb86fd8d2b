// The languages of documents, e-mails and the hosted page: one message catalogue per language
// (messages/*.json, ICU MessageFormat) and each language's formats for money, dates, rates and
// quantities. Money is formatted from its minor units exactly (money/format.ts), never through
// a binary float.
import { IntlMessageFormat } from 'intl-messageformat';
import { ParameterInvalidError } from '../errors.ts';
import { formatMoney } from '../money/format.ts';
import { LOCALES, type DocumentLocale } from './model.ts';
import de from './messages/de.json' with { type: 'json' };
import en from './messages/en.json' with { type: 'json' };
import es from './messages/es.json' with { type: 'json' };
import fr from './messages/fr.json' with { type: 'json' };
import it from './messages/it.json' with { type: 'json' };
import nl from './messages/nl.json' with { type: 'json' };
import pl from './messages/pl.json' with { type: 'json' };

export type MessageId = keyof typeof en;
export type MessageValues = Record<string, string | number>;

// Typed against the English catalogue: a catalogue that lacks a message does not compile.
const CATALOGUES: Record<DocumentLocale, Readonly<Record<MessageId, string>>> = {
  en,
  de,
  fr,
  es,
  it,
  nl,
  pl,
};

export const MESSAGE_IDS = Object.keys(en) as MessageId[];

export function isMessageId(id: string): id is MessageId {
  return Object.hasOwn(en, id);
}

/** The catalogue of one language, as written (for tests and tools). */
export function catalogue(locale: DocumentLocale): Readonly<Record<MessageId, string>> {
  return CATALOGUES[locale];
}

function isDocumentLocale(value: string): value is DocumentLocale {
  return (LOCALES as readonly string[]).includes(value);
}

/** A BCP 47 tag → the language of its catalogue (`de-AT` → `de`), or null when there is none. */
export function catalogueLocale(tag: string): DocumentLocale | null {
  try {
    const language = new Intl.Locale(tag).language.toLowerCase();
    return isDocumentLocale(language) ? language : null;
  } catch {
    return null;
  }
}

/** A BCP 47 tag → the language of its catalogue: `de-AT` → `de`; unknown or invalid → fallback. */
export function resolveLocale(
  tag: string | null | undefined,
  fallback: DocumentLocale = 'en',
): DocumentLocale {
  return (tag && catalogueLocale(tag)) || fallback;
}

const compiled = new Map<string, IntlMessageFormat>();

/** The message `id` in the language, with its placeholders filled in. */
export function t(locale: DocumentLocale, id: MessageId, values?: MessageValues): string {
  const key = `${locale}\n${id}`;
  let format = compiled.get(key);
  if (!format) {
    format = new IntlMessageFormat(CATALOGUES[locale][id], locale);
    compiled.set(key, format);
  }
  return String(format.format<string>(values));
}

/** 123456 eur in `de` → "1.234,56 €"; the digits are the currency's minor unit. */
export function formatAmount(amount: number | bigint, currency: string, locale: DocumentLocale) {
  return formatMoney(amount, currency, locale);
}

function perLocale<T>(make: (locale: DocumentLocale) => T): (locale: DocumentLocale) => T {
  const made = new Map<DocumentLocale, T>();
  return (locale) => {
    let value = made.get(locale);
    if (value === undefined) made.set(locale, (value = make(locale)));
    return value;
  };
}

// English documents go abroad: "24 Nov 2026" cannot be misread as 11 April; the other
// languages use their national numeric form (de 24.11.2026, fr 24/11/2026, nl 24-11-2026).
const dateFormats = perLocale((locale) =>
  locale === 'en'
    ? new Intl.DateTimeFormat('en-GB', {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
      })
    : new Intl.DateTimeFormat(locale, {
        day: '2-digit',
        month: '2-digit',
        year: 'numeric',
        timeZone: 'UTC',
      }),
);

/** A calendar date (YYYY-MM-DD, no time zone) in the language: `de` "24.11.2026". */
export function formatDate(isoDate: string, locale: DocumentLocale): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(isoDate)) throw new RangeError(`not a date: '${isoDate}'`);
  const date = new Date(`${isoDate}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) throw new RangeError(`not a date: '${isoDate}'`);
  return dateFormats(locale).format(date);
}

/** A period of calendar dates, both inclusive, in the language: `fr` "du 01/01/2027 au 31/01/2027". */
export function formatPeriod(period: { start: string; end: string }, locale: DocumentLocale) {
  return t(locale, 'fact.period', {
    start: formatDate(period.start, locale),
    end: formatDate(period.end, locale),
  });
}

const percentFormats = perLocale(
  (locale) =>
    new Intl.NumberFormat(locale, { style: 'unit', unit: 'percent', maximumFractionDigits: 20 }),
);
// Up to 20 decimals: a quantity is printed as exactly as it was measured (12 places at most).
const quantityFormats = perLocale(
  (locale) => new Intl.NumberFormat(locale, { maximumFractionDigits: 20 }),
);
const regionNames = perLocale((locale) => new Intl.DisplayNames([locale], { type: 'region' }));

/** A rate given as exact decimal text: "8.875" in `de` → "8,875 %", in `en` → "8.875%". */
export function formatPercentage(percentage: string, locale: DocumentLocale): string {
  if (!/^-?\d+(\.\d+)?$/.test(percentage)) throw new RangeError(`not a rate: '${percentage}'`);
  return percentFormats(locale).format(percentage as Intl.StringNumericLiteral);
}

/**
 * A quantity with the language's digit grouping and decimal separator, exactly: 1500 in `de` →
 * "1.500", "12.5" → "12,5" (decimal text is formatted as written, never through a float).
 */
export function formatQuantity(quantity: number | string, locale: DocumentLocale): string {
  if (typeof quantity === 'string' && !/^-?\d+(\.\d+)?$/.test(quantity)) {
    throw new RangeError(`not a quantity: '${quantity}'`);
  }
  return quantityFormats(locale).format(quantity as number | Intl.StringNumericLiteral);
}

/** A unit of measure in the language, for its quantity ("month" / "months"), else its code. */
export function unitName(unitCode: string, quantity: number | string, locale: DocumentLocale) {
  const id = `unit.${unitCode}`;
  if (!isMessageId(id)) return unitCode;
  // Plural rules read a number rounded to three decimals, where 1.0001 would pass for 1. In
  // the catalogues' languages a fraction's category depends on its integer part alone, so the
  // integer part with a fraction of .5 has the decimal's category, whatever its digits.
  const count = typeof quantity === 'number' ? quantity : Number(quantity.replace(/\.\d+$/, '.5'));
  return t(locale, id, { count });
}

/** ISO 3166-1 alpha-2 → the country's name in the language ("DE" in `fr` → "Allemagne"). */
export function countryName(code: string, locale: DocumentLocale): string {
  try {
    return regionNames(locale).of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** A language tag the documents can speak, as given; else 400 parameter_invalid naming `param`. */
export function checkedLocale(tag: string, param = 'locale'): string {
  if (catalogueLocale(tag) === null) {
    throw new ParameterInvalidError(
      param,
      `No catalogue for '${tag}'; the languages are ${LOCALES.join(', ')}.`,
    );
  }
  return tag;
}
