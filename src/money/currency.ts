// Currencies: ISO 4217 codes, written in lower case in the API, and their minor units.
// The list of codes comes from the platform's ICU data (current ISO 4217 currencies). The
// number of minor units is ISO 4217's, which is what "amounts in the minor unit" means to a
// client; ICU's digits are display digits (CLDR) and differ for a few currencies, so those
// are corrected from the ISO 4217 list below.

// ISO 4217 exponents where CLDR's display digits differ (CLDR shows e.g. HUF without decimals,
// but ISO 4217 defines the fillér, so 1000 HUF is 100000 in the minor unit).
const ISO_MINOR_UNITS: Record<string, number> = {
  AFN: 2,
  ALL: 2,
  COP: 2,
  HUF: 2,
  IDR: 2,
  IQD: 3,
  IRR: 2,
  KPW: 2,
  LAK: 2,
  LBP: 2,
  MGA: 2,
  MMK: 2,
  PKR: 2,
  SLL: 2,
  SOS: 2,
  SYP: 2,
  YER: 2,
};

// Units of account without a minor unit in ISO 4217 ("N.A."): nobody is invoiced in them.
const NOT_INVOICEABLE = new Set(['XDR', 'XSU', 'XUA', 'XAU', 'XAG', 'XPT', 'XPD', 'XTS', 'XXX']);

function icuDigits(code: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
    .maximumFractionDigits!;
}

const MINOR_UNITS: ReadonlyMap<string, number> = new Map(
  Intl.supportedValuesOf('currency')
    .filter((code) => !NOT_INVOICEABLE.has(code))
    .map((code) => [code.toLowerCase(), ISO_MINOR_UNITS[code] ?? icuDigits(code)]),
);

/** True for a known ISO 4217 code written in lower case (`eur`, `jpy`). */
export function isCurrency(code: string): boolean {
  return MINOR_UNITS.has(code);
}

/** Digits after the decimal point of the currency's minor unit: eur 2, jpy 0, kwd 3. */
export function minorUnits(currency: string): number {
  const digits = MINOR_UNITS.get(currency);
  if (digits === undefined) throw new RangeError(`unknown currency '${currency}'`);
  return digits;
}
