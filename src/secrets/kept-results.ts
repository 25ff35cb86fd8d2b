// Sealing of results kept under an Idempotency-Key (src/http/kept-results.ts decides which).
// A result that carries a secret (an API key's, a webhook endpoint's) is sealed under a key
// derived from the calling key's own secret, so only that key can open it and the database
// never holds the secret in clear. A result that shows a capability URL (an invoice's hosted
// URL) is sealed under the server's secrets key, which seals the link's token at rest anyway.
import type { SecretsKeyring } from './keyring.ts';
import { deriveKey, open, seal, sealedKeyId } from './sealed.ts';

/** The key id of results sealed under the caller's key (the server's keys have their own). */
const CALLER = 'caller';

/** Where a kept result lives: its tenant, environment and Idempotency-Key. */
export interface ResultSlot {
  tenantId: string;
  environment: string;
  key: string;
}

/** Under which key a result is sealed: the server's, or the calling key's own secret. */
export type SealedUnder = 'server' | 'caller';

/** The key a secret-bearing result is sealed under: only the calling key's secret opens it. */
function callerKey(callerSecret: string, slot: ResultSlot): Buffer {
  return deriveKey(callerSecret, `idempotent result\n${slot.tenantId}\n${slot.environment}`);
}

function context(slot: ResultSlot): string {
  return `${slot.tenantId}\n${slot.environment}\n${slot.key}`;
}

export function sealResult(
  body: string,
  under: SealedUnder,
  callerSecret: string,
  server: SecretsKeyring,
  slot: ResultSlot,
): string {
  return under === 'caller'
    ? seal(body, callerKey(callerSecret, slot), CALLER, context(slot))
    : server.seal(body, context(slot));
}

export function openResult(
  sealed: string,
  callerSecret: string,
  server: SecretsKeyring,
  slot: ResultSlot,
): string {
  return sealedKeyId(sealed) === CALLER
    ? open(sealed, callerKey(callerSecret, slot), context(slot))
    : server.open(sealed, context(slot));
}
