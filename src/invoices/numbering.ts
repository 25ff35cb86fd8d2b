// Invoice numbers: sequential and gapless per tenant and environment (INV-000001, …), the
// prefix a tenant setting. The counter is a row locked by the issuing transaction (see the
// migration), so concurrent issues queue for it and a rolled-back issue leaves no gap.
import type { Tx } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import { takeNextInvoiceNumber } from './store.ts';

export function formatInvoiceNumber(prefix: string, sequence: number): string {
  return `${prefix}${String(sequence).padStart(6, '0')}`;
}

/**
 * Takes the next number. Call it last in the issuing transaction: the counter stays locked
 * until that transaction ends, and every other issue of the tenant waits for it.
 */
export async function nextInvoiceNumber(
  tx: Tx,
  scope: TenantScope,
  prefix: string,
): Promise<string> {
  return formatInvoiceNumber(prefix, await takeNextInvoiceNumber(tx, scope));
}
