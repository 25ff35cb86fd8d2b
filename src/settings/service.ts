// Tenant settings: read by the documents (the seller, numbering, language, payment details)
// and by reminders; changed over the API for one environment (a test key never changes what
// live documents print) or by the operator's CLI for both.
import type { Db, Queryable } from '../db/pool.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { isCountryCode, orderedAddress } from '../customers/service.ts';
import { checkedTimeZone } from '../dates.ts';
import { checkedLocale } from '../documents/i18n.ts';
import { ParameterInvalidError, ResourceMissingError } from '../errors.ts';
import type { TenantScope } from '../tenancy.ts';
import type { Settings, SettingsUpdate } from './schemas.ts';
import {
  selectSettings,
  selectSettingsWithTenantName,
  updateSettings as updateSettingsRow,
  type SettingsFields,
  type SettingsRow,
} from './store.ts';

export type { SettingsRow } from './store.ts';
export { insertSettings } from './store.ts';

export function settingsFromRow(row: SettingsRow): Settings {
  const a = row.address;
  return {
    id: row.tenant_id,
    object: 'settings',
    environment: row.environment,
    legalName: row.legal_name,
    address: a && orderedAddress(a),
    taxId: row.tax_id,
    companyRegistration: row.company_registration,
    email: row.email,
    phone: row.phone,
    paymentDetails: {
      iban: row.iban,
      bic: row.bic,
      accountName: row.account_name,
      instructions: row.payment_instructions,
    },
    paymentTerms: row.payment_terms,
    invoicePrefix: row.invoice_prefix,
    creditNotePrefix: row.credit_note_prefix,
    locale: row.locale,
    reminders: row.reminders,
    electronicAddress: row.electronic_address && {
      scheme: row.electronic_address.scheme,
      value: row.electronic_address.value,
    },
    einvoiceRequired: row.einvoice_required,
    timeZone: row.time_zone,
    invoiceGraceMinutes: row.invoice_grace_minutes,
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The settings row of a tenant and environment (404 for an unknown tenant). */
export async function getSettingsRow(db: Queryable, scope: TenantScope): Promise<SettingsRow> {
  const row = await selectSettings(db, scope);
  if (!row) throw new ResourceMissingError('tenant', scope.tenantId);
  return row;
}

/** The settings with the tenant's name. */
export interface SettingsWithTenantName {
  settings: SettingsRow;
  tenantName: string;
}

/** The settings and the tenant's name, read together (see selectSettingsWithTenantName). */
export async function getSettingsWithTenantName(
  db: Queryable,
  scope: TenantScope,
): Promise<SettingsWithTenantName> {
  const row = await selectSettingsWithTenantName(db, scope);
  if (!row) throw new ResourceMissingError('tenant', scope.tenantId);
  const { tenant_name: tenantName, ...settings } = row;
  return { settings, tenantName };
}

export async function getSettings(db: Queryable, scope: TenantScope): Promise<Settings> {
  return settingsFromRow(await getSettingsRow(db, scope));
}

/** ISO 13616: two letters, two check digits, up to 30 letters and digits; mod 97 is 1. */
export function isValidIban(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) =>
    String(c.charCodeAt(0) - 55),
  );
  let rest = 0;
  for (const digit of digits) rest = (rest * 10 + Number(digit)) % 97;
  return rest === 1;
}

/** The settings after a PATCH: absent fields keep their value, null clears an optional one. */
function patched(current: SettingsRow, patch: SettingsUpdate): SettingsFields {
  const keep = <T>(value: T | undefined, now: T): T => (value === undefined ? now : value);
  const address =
    patch.address === undefined
      ? current.address
      : patch.address && {
          line1: patch.address.line1 ?? null,
          line2: patch.address.line2 ?? null,
          city: patch.address.city ?? null,
          state: patch.address.state ?? null,
          postalCode: patch.address.postalCode ?? null,
          country: patch.address.country ?? null,
        };
  if (address?.country && !isCountryCode(address.country)) {
    throw new ParameterInvalidError(
      'address.country',
      `Unknown country code '${address.country}'.`,
    );
  }
  const payment = patch.paymentDetails;
  const iban =
    payment === undefined
      ? current.iban
      : (payment.iban?.replace(/\s+/g, '').toUpperCase() ?? null);
  if (iban !== null && payment !== undefined && !isValidIban(iban)) {
    throw new ParameterInvalidError(
      'paymentDetails.iban',
      'The IBAN is not valid (ISO 13616 check digits).',
    );
  }
  return {
    legal_name: keep(patch.legalName, current.legal_name),
    address,
    tax_id: keep(patch.taxId, current.tax_id),
    company_registration: keep(patch.companyRegistration, current.company_registration),
    email: keep(patch.email, current.email),
    phone: keep(patch.phone, current.phone),
    iban,
    bic: payment === undefined ? current.bic : (payment.bic?.toUpperCase() ?? null),
    account_name: payment === undefined ? current.account_name : (payment.accountName ?? null),
    payment_instructions:
      payment === undefined ? current.payment_instructions : (payment.instructions ?? null),
    payment_terms: keep(patch.paymentTerms, current.payment_terms),
    invoice_prefix: keep(patch.invoicePrefix, current.invoice_prefix),
    credit_note_prefix: keep(patch.creditNotePrefix, current.credit_note_prefix),
    locale: patch.locale === undefined ? current.locale : checkedLocale(patch.locale),
    reminders:
      patch.reminders === undefined
        ? current.reminders
        : [...patch.reminders].sort((a, b) => a - b),
    electronic_address: keep(patch.electronicAddress, current.electronic_address),
    einvoice_required: keep(patch.einvoiceRequired, current.einvoice_required),
    time_zone:
      patch.timeZone === undefined
        ? current.time_zone
        : checkedTimeZone(patch.timeZone, 'timeZone'),
    invoice_grace_minutes: keep(patch.invoiceGraceMinutes, current.invoice_grace_minutes),
  };
}

/** Changes the settings of the request's tenant and environment; event settings.updated. */
export function updateSettings(
  db: Db,
  request: WriteRequest,
  patch: SettingsUpdate,
): Promise<Written<Settings>> {
  return unitOfWork(db, request, async (uow) => {
    const current = await selectSettings(uow.tx, uow.actor, { forUpdate: true });
    if (!current) throw new ResourceMissingError('tenant', uow.actor.tenantId);
    const settings = settingsFromRow(
      await updateSettingsRow(uow.tx, uow.actor, patched(current, patch)),
    );
    uow.event('settings.updated', settings);
    return settings;
  });
}
