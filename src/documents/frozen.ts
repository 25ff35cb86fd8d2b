// What an issued document freezes of its parties: the seller (an invoice at issue, a credit
// note when it is made: each is a document of its own) and the customer as they are at that
// moment, so that its documents print the same thing whenever they are rendered.
import type { CustomerRow } from '../customers/store.ts';
import type { CustomerSnapshot, SellerSnapshot } from '../invoices/schemas.ts';
import type { SettingsRow } from '../settings/service.ts';
import { defaultElectronicAddress } from './electronic-address.ts';
import { buyerVatId } from './parties.ts';

export function customerSnapshot(customer: CustomerRow, settings: SettingsRow): CustomerSnapshot {
  return {
    name: customer.name,
    email: customer.email,
    address: customer.address,
    taxIds: customer.tax_ids,
    taxExempt: customer.tax_exempt,
    locale: customer.locale ?? settings.locale,
    // Derived from the VAT id the documents name as the buyer's (a British customer's gb_vat
    // too, whose scheme is 9932), so that the address and BT-48 agree.
    electronicAddress:
      customer.electronic_address ??
      defaultElectronicAddress(buyerVatId(customer.tax_ids), customer.email),
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
