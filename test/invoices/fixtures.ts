// Shared set-up for the invoice and tax tests: the app (with rate limits out of the way of
// concurrency tests), a tenant's key, customers and tax rates made over the API.
import assert from 'node:assert/strict';
import type { Config } from '../../src/config.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import {
  client,
  createTenantWithKey,
  createTestDatabase,
  setSettings,
  startTestServer,
  type TestKey,
} from '../helpers.ts';

export type Api = ReturnType<typeof client>;

/** A folder for this test file (the mail outbox), removed when its tests end. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'billing-invoices-'));
  after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The app on a fresh database of this test file; `start` starts another instance on the same
 * database (always with its URL: without one a server would open the embedded database).
 */
export async function startInvoiceApp(overrides: Partial<Config> = {}) {
  const databaseUrl = await createTestDatabase();
  const dataDir = await tempDir();
  const start = (more: Partial<Config> = {}, logStream?: { write(line: string): void }) =>
    startTestServer(
      databaseUrl,
      { rateLimitTest: 1_000_000, rateLimitLive: 1_000_000, dataDir, ...overrides, ...more },
      logStream,
    );
  return Object.assign(await start(), { start, databaseUrl });
}

export async function tenantApi(
  server: { url: string; db: Parameters<typeof createTenantWithKey>[0] },
  options: Parameters<typeof createTenantWithKey>[1] = {},
): Promise<{ api: Api; key: TestKey }> {
  const key = await createTenantWithKey(server.db, options);
  return { api: client(server.url, key.secret), key };
}

export async function createCustomer(api: Api, body: Record<string, unknown> = {}) {
  const res = await api.post('/v1/customers', {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    ...body,
  });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string };
}

export async function createTaxRate(api: Api, body: Record<string, unknown>) {
  const res = await api.post('/v1/tax-rates', { displayName: 'VAT', inclusive: false, ...body });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string };
}

/**
 * A tenant whose invoices meet EN 16931 and Peppol: a Dutch seller with its settings, a Belgian
 * buyer (its e-mail address `buyerEmail` of the tenant's id) and a 21 % VAT rate.
 */
export async function einvoiceTenant(
  server: Parameters<typeof tenantApi>[0],
  buyerEmail: (tenantId: string) => string = () => 'ap@brussels.example',
) {
  const { api, key } = await tenantApi(server);
  await setSettings(server.db, key.tenantId, {
    legalName: 'Tulip Software B.V.',
    taxId: 'NL123456789B01',
    companyRegistration: '12345678',
    email: 'billing@tulip.example',
    address: { line1: 'Keizersgracht 1', city: 'Amsterdam', postalCode: '1015 CS', country: 'NL' },
    paymentDetails: { iban: 'NL91ABNA0417164300', bic: 'ABNANL2A' },
  });
  const customer = await createCustomer(api, {
    name: 'Brussels Trading SA',
    email: buyerEmail(key.tenantId),
    address: { line1: 'Rue Royale 1', city: 'Bruxelles', postalCode: '1000', country: 'BE' },
    taxIds: [{ type: 'eu_vat', value: 'BE0123456749' }],
  });
  const vat = await createTaxRate(api, { percentage: 21 });
  return { api, key, customer, vat };
}

export async function createInvoice(api: Api, body: Record<string, unknown>) {
  const res = await api.post('/v1/invoices', { currency: 'eur', ...body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Asserts an error envelope with this status and code (and param, when given). */
export function assertError(
  res: { status: number; body: any; text: string },
  status: number,
  code: string,
  param?: string,
): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body?.error?.code, code, res.text);
  if (param !== undefined) assert.equal(res.body.error.param, param, res.text);
}
