// Code lists the EN 16931 and Peppol rules check against, as far as the model's data can miss
// them. The lists are the public CEF and ISO code lists as the validation artefacts use them
// (EN 16931 validation artefacts 1.3.16, Peppol BIS Billing 3.0 of 2025 Q2); when a new
// release changes a list, `npm run conformance` against the new artefacts shows it.

/** The syntax a document is written in: UBL follows Peppol BIS 3.0, CII plain EN 16931. */
export type EinvoiceSyntax = 'ubl' | 'cii';

const EAS_99XX = [
  '9910 9913 9914 9915 9918 9919 9920 9922 9923 9924 9925 9926 9927 9928 9929 9930 9931 9932',
  '9933 9934 9935 9936 9937 9938 9939 9940 9941 9942 9943 9944 9945 9946 9947 9948 9949 9950',
  '9951 9952 9953 9957 9959',
].join(' ');

/** Electronic address schemes (CEF EAS) accepted by EN 16931 (BR-CL-25). */
const EAS_EN16931 = new Set(
  [
    '0002 0007 0009 0037 0060 0088 0096 0097 0106 0130 0135 0142 0147 0151 0154 0158 0170 0177',
    '0183 0184 0188 0190 0191 0192 0193 0194 0195 0196 0198 0199 0200 0201 0202 0203 0204 0205',
    '0208 0209 0210 0211 0212 0213 0215 0216 0217 0218 0219 0220 0221 0225 0230 0235 0240 0242',
    '0244 0245 0246 0248',
    EAS_99XX,
    'AN AQ AS AU EM',
  ]
    .join(' ')
    .split(' '),
);

/** The Peppol subset (PEPPOL-EN16931-CL008): no e-mail (EM) or X.400 addresses on the network. */
const EAS_PEPPOL = new Set(
  [
    '0002 0007 0009 0037 0060 0088 0096 0097 0106 0130 0135 0142 0147 0151 0154 0158 0170 0177',
    '0183 0184 0188 0190 0191 0192 0193 0194 0195 0196 0198 0199 0200 0201 0202 0203 0204 0205',
    '0208 0209 0210 0211 0212 0213 0215 0216 0217 0218 0221 0225 0230 0235 0240',
    EAS_99XX,
  ]
    .join(' ')
    .split(' '),
);

/**
 * The schemes the API accepts for an electronic address: the EN 16931 list's EAS codes and EM
 * (its X.400 and AS2 forms, AN to AU, have no use here).
 */
export const ELECTRONIC_ADDRESS_SCHEMES = [...EAS_EN16931].filter((code) =>
  /^([0-9]{4}|EM)$/.test(code),
);

export function isElectronicAddressScheme(scheme: string, syntax: EinvoiceSyntax): boolean {
  return syntax === 'ubl'
    ? EAS_PEPPOL.has(scheme) && EAS_EN16931.has(scheme)
    : EAS_EN16931.has(scheme);
}

/**
 * ISO 4217 codes the platform knows (and so the API accepts) that the rules' currency lists
 * lack: EN 16931 (BR-CL-03/04) still lists STD rather than STN and has no BGN, ANG; Peppol
 * (PEPPOL-EN16931-CL007) has no XCG. Withdrawn codes (HRK, SLL, ZWL, CUC) are in neither.
 */
const CURRENCIES_REFUSED: Record<EinvoiceSyntax, ReadonlySet<string>> = {
  cii: new Set(['ANG', 'BGN', 'CUC', 'HRK', 'SLL', 'STN', 'ZWL']),
  ubl: new Set(['ANG', 'BGN', 'CUC', 'HRK', 'SLL', 'STN', 'ZWL', 'XCG']),
};

export function isEinvoiceCurrency(code: string, syntax: EinvoiceSyntax): boolean {
  return !CURRENCIES_REFUSED[syntax].has(code.toUpperCase());
}

// Region codes ICU names that are not ISO 3166-1 alpha-2 country codes (reserved, withdrawn
// or exceptional): the rules' country list (BR-CL-14) refuses them.
const NOT_ISO_3166 = new Set(
  'AC AN BU CP CQ CS DD DG DY EA EU EZ FX HV IC NH QO RH SU TA TP UK UN VD XA XB XK YD YU ZR ZZ'.split(
    ' ',
  ),
);
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

// ICU's answers, remembered: every invoice's readiness asks (at most 26 × 26 codes).
const countryCodes = new Map<string, boolean>();

/** True for the country codes BR-CL-14 accepts: ISO 3166-1 alpha-2, plus 1A (Kosovo) and XI. */
export function isCountryCode(code: string): boolean {
  if (code === '1A' || code === 'XI') return true;
  if (!/^[A-Z]{2}$/.test(code) || NOT_ISO_3166.has(code)) return false;
  let known = countryCodes.get(code);
  if (known === undefined) {
    known = regionNames.of(code) !== undefined;
    countryCodes.set(code, known);
  }
  return known;
}

/** A VAT identifier's prefix (BR-CO-09): a country code, or EL for Greece. */
export function hasVatPrefix(vatId: string): boolean {
  const prefix = vatId.slice(0, 2);
  return prefix === 'EL' || isCountryCode(prefix);
}

/**
 * Countries whose IBANs take part in SEPA (European Payments Council, scheme list of
 * participating countries): a credit transfer to such an account is code 58 (SEPA credit
 * transfer), any other is code 30 (credit transfer).
 */
const SEPA = new Set(
  [
    'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE',
    'IS LI NO CH GB MC SM VA AD GI AL ME MD MK RS',
  ]
    .join(' ')
    .split(' '),
);

export function isSepaIban(iban: string): boolean {
  return SEPA.has(iban.slice(0, 2).toUpperCase());
}
