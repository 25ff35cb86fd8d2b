// Every instance must hold the key the database's secrets were sealed with. The first start
// seals a known text in the database; each later start opens it, so an instance started with
// another SECRETS_KEY stops at once with a clear message instead of failing every delivery.
import type { Db } from '../db/pool.ts';
import { SecretsKeyError, type SecretsKeyring } from './keyring.ts';
import { insertKeyCheck, selectKeyCheck, updateKeyCheck } from './store.ts';

const CHECK_TEXT = 'billing secrets key check';
const CONTEXT = 'key_check';

export async function checkSecretsKey(db: Db, keyring: SecretsKeyring): Promise<void> {
  const stored =
    (await selectKeyCheck(db)) ?? (await insertKeyCheck(db, keyring.seal(CHECK_TEXT, CONTEXT)));
  try {
    if (keyring.open(stored, CONTEXT) === CHECK_TEXT) return;
  } catch {
    // Refused below.
  }
  throw new SecretsKeyError(
    "This database's secrets were sealed with another key than this server has (SECRETS_KEY, or DATA_DIR/secrets.key). Every instance of one database needs the same SECRETS_KEY; while rotating, put the old key in SECRETS_KEY_PREVIOUS.",
  );
}

/** Seals the check under the current key (part of `billing secrets reseal`). */
export async function resealKeyCheck(db: Db, keyring: SecretsKeyring): Promise<void> {
  await updateKeyCheck(db, keyring.seal(CHECK_TEXT, CONTEXT));
}
