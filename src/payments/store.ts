// SQL for payments. Every query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import { rowById } from '../db/row-by-id.ts';
import { keysetPage, type PagePosition } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { PaymentMethod } from './schemas.ts';

export interface PaymentRow {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  invoice_id: string;
  customer_id: string;
  currency: string;
  amount: number;
  method: PaymentMethod;
  reference: string | null;
  status: 'succeeded' | 'void';
  received_at: Date;
  created_at: Date;
  voided_at: Date | null;
}

export type NewPayment = Pick<
  PaymentRow,
  'id' | 'invoice_id' | 'customer_id' | 'currency' | 'amount' | 'method' | 'reference'
> & { received_at: Date | null };

const COLUMNS = `tenant_id, environment, id, invoice_id, customer_id, currency, amount, method,
  reference, status, received_at, created_at, voided_at`;

/**
 * Inserts the payment unless its invoice has `max` payments already (then undefined; counted
 * by index payments_by_invoice): run with the invoice locked, so the count stays true.
 * received_at defaults to the time it is recorded: the same clock reading as created_at.
 */
export async function insertPayment(
  db: Queryable,
  scope: TenantScope,
  payment: NewPayment,
  max: number,
): Promise<PaymentRow | undefined> {
  const { rows } = await db.query<PaymentRow>(
    `INSERT INTO payments (tenant_id, environment, id, invoice_id, customer_id, currency, amount,
                           method, reference, received_at, created_at)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, coalesce($10, recorded.at), recorded.at
       FROM (SELECT clock_timestamp() AS at) recorded
      WHERE (SELECT count(*) FROM payments
              WHERE tenant_id = $1 AND environment = $2 AND invoice_id = $4) < $11
     RETURNING ${COLUMNS}`,
    [
      scope.tenantId,
      scope.environment,
      payment.id,
      payment.invoice_id,
      payment.customer_id,
      payment.currency,
      payment.amount,
      payment.method,
      payment.reference,
      payment.received_at,
      max,
    ],
  );
  return rows[0];
}

export const selectPayment = rowById<PaymentRow>(`SELECT ${COLUMNS} FROM payments`);

export async function markPaymentVoid(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<PaymentRow> {
  const { rows } = await db.query<PaymentRow>(
    `UPDATE payments SET status = 'void', voided_at = clock_timestamp()
      WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND status = 'succeeded'
      RETURNING ${COLUMNS}`,
    [scope.tenantId, scope.environment, id],
  );
  return rows[0]!;
}

// Each filter variant has its own index (migration 0020), which keysetPage's position bounds.
// Both filters use the invoice's index (an invoice has few payments) and check the customer on
// its rows.
const FILTERS = {
  all: '', // payments_page
  invoice: 'AND invoice_id = $3', // payments_by_invoice
  customer: 'AND customer_id = $3', // payments_by_customer
  invoiceCustomer: 'AND invoice_id = $3 AND customer_id = $4', // payments_by_invoice
} as const;

/** One page of payments, newest first (index per variant: see FILTERS). */
export async function selectPaymentPage(
  db: Queryable,
  scope: TenantScope,
  filters: { invoiceId?: string | undefined; customerId?: string | undefined },
  after: PagePosition | null,
  limit: number,
): Promise<PaymentRow[]> {
  const values: unknown[] = [scope.tenantId, scope.environment];
  if (filters.invoiceId !== undefined) values.push(filters.invoiceId);
  if (filters.customerId !== undefined) values.push(filters.customerId);
  const filter: keyof typeof FILTERS =
    filters.invoiceId !== undefined
      ? filters.customerId !== undefined
        ? 'invoiceCustomer'
        : 'invoice'
      : filters.customerId !== undefined
        ? 'customer'
        : 'all';
  const page = keysetPage(values, after, limit);
  const { rows } = await db.query<PaymentRow>(
    `SELECT ${COLUMNS} FROM payments
      WHERE tenant_id = $1 AND environment = $2 ${FILTERS[filter]} ${page.after}
      ${page.orderBy}`,
    page.values,
  );
  return rows;
}
