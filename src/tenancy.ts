// The two coordinates every query is scoped by. A key belongs to exactly one tenant and one
// environment, and nothing it does may reach outside them.
import type { Scope } from './keys/scopes.ts';

export type Environment = 'live' | 'test';

/** Both environments, for what an operator runs over all of a tenant's data. */
export const ENVIRONMENTS: readonly Environment[] = ['live', 'test'];

export interface TenantScope {
  tenantId: string;
  environment: Environment;
}

/** Who is acting: an API key, or the operator (CLI) when keyId is null. */
export interface Actor extends TenantScope {
  keyId: string | null;
  /** The key its rotations started from (replays of stored results follow it); null: operator. */
  lineageId: string | null;
  scopes: readonly Scope[];
}

/**
 * The operator (the CLI) or the server's own jobs acting on one tenant: no key. Scopes do not
 * limit the operator; what may be done is decided by the command.
 */
export function operator(tenantId: string, environment: Environment = 'live'): Actor {
  return { tenantId, environment, keyId: null, lineageId: null, scopes: [] };
}
