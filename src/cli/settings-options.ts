// The settings options of `billing tenants update`, as the PATCH /v1/settings body they stand
// for: one validation for both doors (the service checks what the schema does not).
import { MAX_INVOICE_GRACE_MINUTES, type SettingsUpdate } from '../settings/schemas.ts';
import { ENVIRONMENTS, type Environment } from '../tenancy.ts';

type Options = Record<string, string | boolean | undefined>;

export function parseEnvironments(value: unknown): Environment[] {
  if (value === undefined) return [...ENVIRONMENTS];
  if (value === 'live' || value === 'test') return [value];
  throw new Error('--environment must be live or test');
}

export function settingsPatch(o: Options): SettingsUpdate {
  const text = (name: string) => (typeof o[name] === 'string' ? (o[name] as string) : undefined);
  const patch: SettingsUpdate = {};
  const set = <K extends keyof SettingsUpdate>(key: K, value: SettingsUpdate[K] | undefined) => {
    if (value !== undefined) patch[key] = value;
  };
  set('legalName', text('legalName'));
  set('taxId', text('taxId'));
  set('companyRegistration', text('companyRegistration'));
  set('email', text('email'));
  set('phone', text('phone'));
  set('paymentTerms', text('paymentTerms'));
  set('invoicePrefix', text('invoicePrefix'));
  set('creditNotePrefix', text('creditNotePrefix'));
  set('locale', text('locale'));
  set('timeZone', text('timeZone'));
  const addressKeys = ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country'];
  if (addressKeys.some((k) => text(k) !== undefined)) {
    const country = text('country');
    if (country !== undefined && !/^[A-Z]{2}$/.test(country)) {
      throw new Error('--country must be an ISO 3166-1 alpha-2 code such as DE or US');
    }
    patch.address = {
      line1: text('addressLine1') ?? null,
      line2: text('addressLine2') ?? null,
      city: text('city') ?? null,
      state: text('state') ?? null,
      postalCode: text('postalCode') ?? null,
      country: country ?? null,
    };
  }
  const paymentKeys = ['iban', 'bic', 'accountName', 'paymentInstructions'];
  if (paymentKeys.some((k) => text(k) !== undefined)) {
    patch.paymentDetails = {
      iban: text('iban') ?? null,
      bic: text('bic') ?? null,
      accountName: text('accountName') ?? null,
      instructions: text('paymentInstructions') ?? null,
    };
  }
  const reminders = text('reminders');
  if (reminders !== undefined) {
    const days = reminders.split(',').map((d) => Number(d.trim()));
    if (!days.every((d) => Number.isInteger(d) && d >= 1 && d <= 365)) {
      throw new Error('--reminders must be whole days from 1 to 365, e.g. 3,14,30');
    }
    patch.reminders = days;
  }
  const address = text('electronicAddress');
  if (address !== undefined) {
    const [scheme, ...value] = address.split(':');
    if (!scheme || value.length === 0) throw new Error('--electronic-address is scheme:value');
    patch.electronicAddress = { scheme, value: value.join(':') };
  }
  const required = text('einvoiceRequired');
  if (required !== undefined) {
    if (required !== 'yes' && required !== 'no') {
      throw new Error('--einvoice-required must be yes or no');
    }
    patch.einvoiceRequired = required === 'yes';
  }
  const grace = text('invoiceGraceMinutes');
  if (grace !== undefined) {
    const minutes = Number(grace);
    if (!/^\d+$/.test(grace) || minutes > MAX_INVOICE_GRACE_MINUTES) {
      throw new Error(
        `--invoice-grace-minutes must be whole minutes from 0 to ${MAX_INVOICE_GRACE_MINUTES}`,
      );
    }
    patch.invoiceGraceMinutes = minutes;
  }
  return patch;
}
