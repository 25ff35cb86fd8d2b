// Sealing again, under the current key, the values of a sealed column that an earlier key
// sealed (or that were stored before sealing): at start while a key rotation is under way
// (SECRETS_KEY_PREVIOUS), and by `billing secrets reseal`.
import type { Db } from '../db/pool.ts';
import { unitOfWork } from '../db/unit-of-work.ts';
import { operator, type TenantScope } from '../tenancy.ts';
import type { SecretsKeyring } from './keyring.ts';
import {
  replaceSealedValue,
  selectSealedValues,
  type SealedColumn,
  type SealedValue,
} from './store.ts';

/**
 * Seals again every value of the column the current key did not seal; returns how many.
 * `resealed` gives a value's new sealed form, or null to leave it as it is. Each value is
 * written in its own unit of work, as its tenant's operator.
 */
export async function resealColumn(
  db: Db,
  secrets: SecretsKeyring,
  column: SealedColumn,
  resealed: (value: SealedValue, scope: TenantScope) => string | null,
): Promise<number> {
  let count = 0;
  let after: SealedValue | null = null;
  for (;;) {
    const batch = await selectSealedValues(db, column, after, 500);
    if (batch.length === 0) return count;
    after = batch[batch.length - 1]!;
    for (const value of batch) {
      if (secrets.isCurrent(value.sealed)) continue;
      const scope = { tenantId: value.tenant_id, environment: value.environment };
      const sealed = resealed(value, scope);
      if (sealed === null) continue;
      await unitOfWork(db, { actor: operator(value.tenant_id, value.environment) }, ({ tx }) =>
        replaceSealedValue(tx, column, scope, value.key, value.sealed, sealed),
      );
      count++;
    }
  }
}
