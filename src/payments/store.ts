// SQL for payments. Every query takes the tenant and the environment.
import type { Queryable } from '../db/pool.ts';
import { rowById } from '../db/row-by-id.ts';
import { pageReader } from '../paging.ts';
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

/**
 * One page of payments, newest first. Each filter variant has its own index (migration 0020),
 * which the page's position bounds: payments_page, payments_by_invoice, payments_by_customer.
 * Both filters use the invoice's index (an invoice has few payments) and check the customer on
 * its rows.
 */
export const selectPaymentPage = pageReader<
  PaymentRow,
  { invoiceId?: string | undefined; customerId?: string | undefined }
>(`SELECT ${COLUMNS} FROM payments`, {
  filters: (f) => [
    ['invoice_id', f.invoiceId],
    ['customer_id', f.customerId],
  ],
});
