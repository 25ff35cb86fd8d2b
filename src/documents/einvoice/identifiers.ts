// Party identifiers whose form the Peppol rules check: the seller's legal registration (BT-30)
// gets the ISO 6523 scheme of its country's register where Peppol demands one (DK-R-014,
// NL-R-003, SE-R-003, IS-R-002), and identifiers with a check digit are verified the way
// PEPPOL-COMMON-R040…R050 verify them, so that a wrong one is reported instead of sent.

export interface LegalRegistration {
  value: string;
  /** ISO 6523 ICD, or null when the register has no scheme the rules require. */
  scheme: string | null;
}

function digitsOf(text: string): number[] {
  return [...text].map(Number);
}

/** GS1 check digit (GLN, scheme 0088). */
function gln(value: string): boolean {
  if (!/^[0-9]{2,}$/.test(value)) return false;
  const digits = digitsOf(value);
  const check = digits.pop()!;
  const sum = digits.reverse().reduce((s, d, i) => s + d * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

/** Norwegian organisation number (0192): weights 2…7 from the right, modulus 11. */
function norwegian(value: string): boolean {
  if (!/^[0-9]{9}$/.test(value) || Number(value) === 0) return false;
  const digits = digitsOf(value);
  const check = digits.pop()!;
  const sum = digits.reverse().reduce((s, d, i) => s + d * ((i % 6) + 2), 0);
  return (11 - (sum % 11)) % 11 === check;
}

/** Swedish organisation number (0007): Luhn over the first nine digits. */
function swedish(value: string): boolean {
  if (!/^[0-9]{10}$/.test(value)) return false;
  const digits = digitsOf(value);
  const check = digits.pop()!;
  const sum = digits
    .reverse()
    .reduce((s, d, i) => s + (i % 2 === 0 ? ((d * 2) % 10) + Math.floor((d * 2) / 10) : d), 0);
  return (10 - (sum % 10)) % 10 === check;
}

/** Belgian enterprise number (0208): the last two digits are 97 − (first eight mod 97). */
function belgian(value: string): boolean {
  if (!/^[0-9]{10}$/.test(value)) return false;
  return 97 - (Number(value.slice(0, 8)) % 97) === Number(value.slice(8));
}

/** Australian Business Number (0151): weighted sum modulus 89, first digit less one. */
function australian(value: string): boolean {
  if (!/^[0-9]{11}$/.test(value)) return false;
  const weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  const digits = digitsOf(value);
  digits[0]! -= 1;
  return digits.reduce((s, d, i) => s + d * weights[i]!, 0) % 89 === 0;
}

const CHECKED: Record<string, (value: string) => boolean> = {
  '0088': gln,
  '0192': norwegian,
  '0184': (v) => /^(DK)?[0-9]{8}$/.test(v),
  '0208': belgian,
  '0007': swedish,
  '0151': australian,
};

/** False when the scheme has a form Peppol checks and the value does not have it. */
export function isWellFormedIdentifier(scheme: string, value: string): boolean {
  const check = CHECKED[scheme];
  return check ? check(value) : true;
}

/** Registers whose numbers Peppol wants with a scheme, by the seller's country. */
const REGISTERS: Record<string, { pattern: RegExp; scheme: string }[]> = {
  DK: [{ pattern: /^(DK)?[0-9]{8}$/, scheme: '0184' }],
  NL: [
    { pattern: /^[0-9]{8}$/, scheme: '0106' },
    { pattern: /^[0-9]{20}$/, scheme: '0190' },
  ],
  SE: [{ pattern: /^[0-9]{10}$/, scheme: '0007' }],
  IS: [{ pattern: /^[0-9]{10}$/, scheme: '0196' }],
  NO: [{ pattern: /^[0-9]{9}$/, scheme: '0192' }],
  BE: [{ pattern: /^[0-9]{10}$/, scheme: '0208' }],
};

/**
 * The seller's legal registration (BT-30) from the free text of the settings: in countries
 * listed above a number of the register's form (spaces, dots and dashes ignored, as people
 * write "556036-0793" or "0123.456.789") is written with its scheme; any other text as it is.
 */
export function legalRegistration(text: string | null, country: string): LegalRegistration | null {
  const value = text?.trim();
  if (!value) return null;
  const compact = value.replace(/[\s.-]/g, '');
  for (const { pattern, scheme } of REGISTERS[country] ?? []) {
    if (pattern.test(compact) && isWellFormedIdentifier(scheme, compact)) {
      return { value: compact, scheme };
    }
  }
  return { value, scheme: null };
}
