// Numbers of issued documents: sequential and gapless per tenant, environment and series
// (INV-000001, …; CN-000001, …), the prefix a tenant setting. Invoices and credit notes have a
// series each: a credit note is a legal document like an invoice, and many countries require
// both series to be gapless. The counter is a row locked by the issuing transaction (see the
// migrations), so concurrent issues queue for it and a rolled-back issue leaves no gap.
import type { Tx } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import { takeNextNumber, type NumberSeries } from './store.ts';

export type { NumberSeries } from './store.ts';

export function formatDocumentNumber(prefix: string, sequence: number): string {
  return `${prefix}${String(sequence).padStart(6, '0')}`;
}

/**
 * Takes the next number of the series. Call it last in the issuing transaction: the counter
 * stays locked until that transaction ends, and every other issue in the series waits for it.
 */
export async function nextDocumentNumber(
  tx: Tx,
  scope: TenantScope,
  series: NumberSeries,
  prefix: string,
): Promise<string> {
  return formatDocumentNumber(prefix, await takeNextNumber(tx, scope, series));
}
