// SQL for tenant settings: one row per tenant and environment, made with the tenant.
import type { Address } from '../customers/schemas.ts';
import type { Queryable } from '../db/pool.ts';
import type { Environment, TenantScope } from '../tenancy.ts';

export interface SettingsRow {
  tenant_id: string;
  environment: Environment;
  legal_name: string | null;
  address: Address | null;
  tax_id: string | null;
  company_registration: string | null;
  email: string | null;
  phone: string | null;
  iban: string | null;
  bic: string | null;
  account_name: string | null;
  payment_instructions: string | null;
  payment_terms: string | null;
  invoice_prefix: string;
  credit_note_prefix: string;
  locale: string;
  reminders: number[];
  electronic_address: { scheme: string; value: string } | null;
  einvoice_required: boolean;
  /** IANA name, canonical. */
  time_zone: string;
  invoice_grace_minutes: number;
  updated_at: Date;
}

export type SettingsFields = Omit<SettingsRow, 'tenant_id' | 'environment' | 'updated_at'>;

const COLUMNS = `tenant_id, environment, legal_name, address, tax_id, company_registration, email,
  phone, iban, bic, account_name, payment_instructions, payment_terms, invoice_prefix,
  credit_note_prefix, locale, reminders, electronic_address, einvoice_required, time_zone,
  invoice_grace_minutes, updated_at`;

/** The two rows of a new tenant, with the defaults. */
export async function insertSettings(db: Queryable, tenantId: string): Promise<void> {
  await db.query(
    `INSERT INTO tenant_settings (tenant_id, environment) VALUES ($1, 'live'), ($1, 'test')`,
    [tenantId],
  );
}

export async function selectSettings(
  db: Queryable,
  scope: TenantScope,
  options: { forUpdate?: boolean } = {},
): Promise<SettingsRow | undefined> {
  const { rows } = await db.query<SettingsRow>(
    `SELECT ${COLUMNS} FROM tenant_settings WHERE tenant_id = $1 AND environment = $2
     ${options.forUpdate ? 'FOR UPDATE' : ''}`,
    [scope.tenantId, scope.environment],
  );
  return rows[0];
}

/**
 * The settings with the tenant's name, in one statement: what a seller is made of (its legal
 * name, or else the tenant's name) on every draft's e-invoice readiness.
 */
export async function selectSettingsWithTenantName(
  db: Queryable,
  scope: TenantScope,
): Promise<(SettingsRow & { tenant_name: string }) | undefined> {
  const { rows } = await db.query<SettingsRow & { tenant_name: string }>(
    `SELECT ${COLUMNS}, (SELECT name FROM tenants WHERE tenant_id = $1) AS tenant_name
       FROM tenant_settings WHERE tenant_id = $1 AND environment = $2`,
    [scope.tenantId, scope.environment],
  );
  return rows[0];
}

export async function updateSettings(
  db: Queryable,
  scope: TenantScope,
  f: SettingsFields,
): Promise<SettingsRow> {
  const { rows } = await db.query<SettingsRow>(
    `UPDATE tenant_settings
        SET legal_name = $3, address = $4, tax_id = $5, company_registration = $6, email = $7,
            phone = $8, iban = $9, bic = $10, account_name = $11, payment_instructions = $12,
            payment_terms = $13, invoice_prefix = $14, credit_note_prefix = $15, locale = $16,
            reminders = $17, electronic_address = $18, einvoice_required = $19,
            time_zone = $20, invoice_grace_minutes = $21, updated_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2
      RETURNING ${COLUMNS}`,
    [
      scope.tenantId,
      scope.environment,
      f.legal_name,
      f.address === null ? null : JSON.stringify(f.address),
      f.tax_id,
      f.company_registration,
      f.email,
      f.phone,
      f.iban,
      f.bic,
      f.account_name,
      f.payment_instructions,
      f.payment_terms,
      f.invoice_prefix,
      f.credit_note_prefix,
      f.locale,
      f.reminders,
      f.electronic_address === null ? null : JSON.stringify(f.electronic_address),
      f.einvoice_required,
      f.time_zone,
      f.invoice_grace_minutes,
    ],
  );
  return rows[0]!;
}
