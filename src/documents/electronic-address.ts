// Where e-invoices reach a party when it did not say (docs/einvoices.md): the Peppol scheme for
// its country's VAT numbers where one exists (9930 for a German VAT id), else its e-mail
// address (EM, which CII documents carry and Peppol does not route).
import type { ElectronicAddress } from './model.ts';

// CEF EAS codes for VAT numbers, by the country prefix the number is written with.
const VAT_SCHEMES: Readonly<Record<string, string>> = {
  AD: '9922',
  AL: '9923',
  AT: '9914',
  BA: '9924',
  BE: '9925',
  BG: '9926',
  CH: '9927',
  CY: '9928',
  CZ: '9929',
  DE: '9930',
  EE: '9931',
  EL: '9933',
  ES: '9920',
  FR: '9957',
  GB: '9932',
  GR: '9933',
  HR: '9934',
  HU: '9910',
  IE: '9935',
  LI: '9936',
  LT: '9937',
  LU: '9938',
  LV: '9939',
  MC: '9940',
  ME: '9941',
  MK: '9942',
  MT: '9943',
  NL: '9944',
  PL: '9945',
  PT: '9946',
  RO: '9947',
  RS: '9948',
  SI: '9949',
  SK: '9950',
  SM: '9951',
  TR: '9952',
  VA: '9953',
};

export function defaultElectronicAddress(
  vatId: string | null,
  email: string | null,
): ElectronicAddress | null {
  const vat = vatId?.replace(/[\s.-]/g, '').toUpperCase();
  const scheme = vat ? VAT_SCHEMES[vat.slice(0, 2)] : undefined;
  if (vat && scheme) return { scheme, value: vat };
  return email ? { scheme: 'EM', value: email } : null;
}
