// Events: every change writes one, in the same transaction as the change (a transactional
// outbox), so an event exists exactly when its change committed.
import type { Tx } from '../db/pool.ts';
import { newId } from '../ids.ts';
import type { TenantScope } from '../tenancy.ts';
import { insertEvent } from './store.ts';

export interface EventObject {
  id: string;
}

export async function recordEvent(
  tx: Tx,
  scope: TenantScope,
  type: string,
  object: EventObject,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await insertEvent(tx, {
    tenantId: scope.tenantId,
    environment: scope.environment,
    id: newId('evt'),
    type,
    objectId: object.id,
    data: { object, ...extra },
  });
}
