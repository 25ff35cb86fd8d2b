// Credit note numbers: sequential and gapless per tenant and environment (CN-000001, …), in a
// series of their own (a credit note is a legal document like an invoice, and many countries
// require both series to be gapless). The prefix is a setting (creditNotePrefix).
// The counter is a row locked by the creating transaction (see the migration).
import type { Tx } from '../db/pool.ts';
import { getSettingsRow } from '../settings/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { takeNextCreditNoteNumber } from './store.ts';

export function formatCreditNoteNumber(prefix: string, sequence: number): string {
  return `${prefix}${String(sequence).padStart(6, '0')}`;
}

/**
 * Takes the next number. Call it last in the creating transaction: the counter stays locked
 * until that transaction ends, and every other creation of the tenant waits for it.
 */
export async function nextCreditNoteNumber(tx: Tx, scope: TenantScope): Promise<string> {
  const { credit_note_prefix: prefix } = await getSettingsRow(tx, scope);
  return formatCreditNoteNumber(prefix, await takeNextCreditNoteNumber(tx, scope));
}
