/// <reference lib="es2023.intl" />
// Money for people: an amount in minor units shown in its currency. The minor-unit integer is
// turned into its decimal text by string arithmetic (never divided as a float), and
// Intl.NumberFormat formats that text exactly.
import { minorUnits } from './currency.ts';

/** 12345 eur → "123.45"; 5 kwd → "0.005"; -7 eur → "-0.07"; 500 jpy → "500". */
export function toDecimalString(amount: number | bigint, currency: string): string {
  const digits = minorUnits(currency);
  const value = BigInt(amount);
  const negative = value < 0n;
  const text = (negative ? -value : value).toString().padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits);
  const fraction = text.slice(text.length - digits);
  return `${negative ? '-' : ''}${whole}${digits > 0 ? `.${fraction}` : ''}`;
}

const formatters = new Map<string, Intl.NumberFormat>();

/** 12345 eur → "€123.45" (in English); the number of decimals is the currency's minor unit. */
export function formatMoney(amount: number | bigint, currency: string, locale = 'en'): string {
  const key = `${locale}\n${currency}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    const digits = minorUnits(currency);
    formatter = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: currency.toUpperCase(),
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    formatters.set(key, formatter);
  }
  // A numeric string is formatted as the exact decimal it denotes (Intl.NumberFormat v3).
  return formatter.format(toDecimalString(amount, currency) as Intl.StringNumericLiteral);
}
