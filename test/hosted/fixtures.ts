// Shared set-up for the hosted page's tests (and its browser checks): a seller whose invoices
// meet EN 16931 (so that both e-invoices exist), customers in a given language, invoices issued
// over the API, and the page fetched as a browser would, without a key.
import assert from 'node:assert/strict';
import { setSettings } from '../helpers.ts';
import { createCustomer, createInvoice, createTaxRate, type Api } from '../invoices/fixtures.ts';
import type { Db } from '../../src/db/pool.ts';

export const SELLER = {
  legalName: 'Nordwind Analytik GmbH',
  taxId: 'DE123456789',
  email: 'rechnung@nordwind.example',
  address: { line1: 'Hafenstraße 12', city: 'Hamburg', postalCode: '20457', country: 'DE' },
  paymentDetails: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
};

export async function completeSeller(db: Db, tenantId: string): Promise<void> {
  await setSettings(db, tenantId, SELLER);
}

/** A customer with an address and a VAT id, in the language given. */
export async function customerIn(api: Api, locale: string, name = 'Ada Lovelace Ltd') {
  return createCustomer(api, {
    name,
    email: `billing+${locale}@lovelace.example`,
    locale,
    address: { line1: '12 Analytical Row', city: 'London', postalCode: 'N1 9GU', country: 'GB' },
    taxIds: [{ type: 'gb_vat', value: 'GB123456789' }],
    // Peppol wants an electronic address for the buyer (PEPPOL-EN16931-R010).
    electronicAddress: { scheme: '0088', value: '5790000435975' },
  });
}

export interface IssuedOnPage {
  id: string;
  number: string;
  total: number;
  hostedInvoiceUrl: string;
  [field: string]: unknown;
}

/** Issues an invoice of `lines` lines (19 % VAT) for a customer in `locale`. */
export async function issuedInvoice(
  api: Api,
  options: { locale?: string; lines?: number; dueDate?: string; customerId?: string } = {},
): Promise<IssuedOnPage> {
  const customerId = options.customerId ?? (await customerIn(api, options.locale ?? 'en')).id;
  const rate = await createTaxRate(api, { percentage: 19, country: 'DE' });
  const count = options.lines ?? 3;
  const draft = await createInvoice(api, {
    customerId,
    defaultTaxRates: [rate.id],
    ...(options.dueDate ? { dueDate: options.dueDate } : { daysUntilDue: 14 }),
    lines: Array.from({ length: count }, (_, i) => ({
      description:
        i === 0
          ? 'Datenanalyse – Quartalsbericht'
          : `Consulting, item ${i + 1}: data pipeline review and written report`,
      quantity: (i % 3) + 1,
      unitAmount: 12_500 + i * 1_000,
    })),
    memo: 'Thank you for your business.',
  });
  const issued = await api.post(`/v1/invoices/${draft.id}/issue`);
  assert.equal(issued.status, 200, issued.text);
  return issued.body as IssuedOnPage;
}

/** The path of a hosted URL (the page is fetched from the server the test started). */
export function pagePath(hostedUrl: string): string {
  return new URL(hostedUrl).pathname;
}

/** GET as a browser would: no key. */
export async function fetchPage(
  baseUrl: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; bytes: Buffer }> {
  const response = await fetch(`${baseUrl}${path}`, { headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    headers: response.headers,
    text: bytes.toString('utf8'),
    bytes,
  };
}
