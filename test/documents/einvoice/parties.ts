// The parties, accounts and rates the e-invoice corpus shares.
import { party } from './build-model.ts';

export const de = party('DE', 'Muster GmbH', {
  vatId: 'DE123456789',
  companyRegistration: 'HRB 12345, AG München',
  electronicAddress: { scheme: '9930', value: 'DE123456789' },
});
export const fr = party('FR', 'Dupont SARL', {
  vatId: 'FR40303265045',
  electronicAddress: { scheme: '9957', value: 'FR40303265045' },
});
export const frBuyer = party('FR', 'Client Martin SA', {
  vatId: 'FR82542065479',
  electronicAddress: { scheme: '0009', value: '54206547900017' },
});
export const at = party('AT', 'Alpen Handel GmbH', {
  vatId: 'ATU12345678',
  electronicAddress: { scheme: '9914', value: 'ATU12345678' },
});
export const atBuyer = party('AT', 'Wiener Café KG', {
  vatId: 'ATU87654321',
  electronicAddress: { scheme: '9914', value: 'ATU87654321' },
});
export const be = party('BE', 'Brussels Trading NV', {
  vatId: 'BE0403754877',
  companyRegistration: '0403.754.877',
  electronicAddress: { scheme: '0208', value: '0403754877' },
});
export const es = party('ES', 'Comercial Ibérica SL', {
  vatId: 'ESB12345678',
  electronicAddress: { scheme: '9920', value: 'ESB12345678' },
});
export const esBuyer = party('ES', 'Hotel Canarias SA', {
  vatId: 'ESA87654321',
  electronicAddress: { scheme: '9920', value: 'ESA87654321' },
});
export const us = party('US', 'Acme Corporation', {
  electronicAddress: { scheme: '0060', value: '123456789' },
});
export const ch = party('CH', 'Zürcher Verein', {
  electronicAddress: { scheme: '0183', value: 'CHE123456789' },
});
export const jp = party('JP', 'Tokyo Trading KK', {
  electronicAddress: { scheme: '0188', value: '1234567890123' },
});
export const iban = {
  iban: 'DE89370400440532013000',
  bic: 'COBADEFFXXX',
  accountName: 'Muster GmbH',
};
export const s19 = { id: 'txr_s19', category: 'S', percentage: '19' } as const;
export const s20 = { id: 'txr_s20', category: 'S', percentage: '20' } as const;
