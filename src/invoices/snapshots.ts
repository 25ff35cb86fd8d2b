// What an invoice freezes at issue: the customer and the seller as they are at that moment,
// so its documents print the same thing whenever they are rendered.
import type { CustomerRow } from '../customers/store.ts';
import type { SettingsRow } from '../settings/service.ts';
import { defaultElectronicAddress } from '../documents/electronic-address.ts';
import type { CustomerSnapshot, SellerSnapshot } from './schemas.ts';

/** The customer's EU VAT id, if it has one (the buyer's VAT id on documents). */
function vatIdOf(customer: CustomerRow): string | null {
  return customer.tax_ids.find((t) => t.type === 'eu_vat')?.value ?? null;
}

export function customerSnapshot(customer: CustomerRow, settings: SettingsRow): CustomerSnapshot {
  return {
    name: customer.name,
    email: customer.email,
    address: customer.address,
    taxIds: customer.tax_ids,
    taxExempt: customer.tax_exempt,
    locale: customer.locale ?? settings.locale,
    electronicAddress:
      customer.electronic_address ?? defaultElectronicAddress(vatIdOf(customer), customer.email),
  };
}

export function sellerSnapshot(settings: SettingsRow, tenantName: string): SellerSnapshot {
  return {
    name: settings.legal_name ?? tenantName,
    address: settings.address,
    taxId: settings.tax_id,
    companyRegistration: settings.company_registration,
    email: settings.email,
    phone: settings.phone,
    electronicAddress: settings.electronic_address,
    iban: settings.iban,
    bic: settings.bic,
    accountName: settings.account_name,
    paymentInstructions: settings.payment_instructions,
    paymentTerms: settings.payment_terms,
  };
}
