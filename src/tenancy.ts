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
  /** The person acting through the console (src/console/), whose role gave the scopes. */
  user?: { id: string; email: string };
}

/** Who made an event's change, as events and webhooks carry it (`actor`). */
export type EventActor =
  | { type: 'user'; id: string; email: string }
  | { type: 'api_key'; id: string }
  | { type: 'system' };

/** The event actor of a writer: a console user, an API key, else the system (worker, CLI). */
export function eventActor(actor: Actor): EventActor {
  if (actor.user) return { type: 'user', id: actor.user.id, email: actor.user.email };
  if (actor.keyId !== null) return { type: 'api_key', id: actor.keyId };
  return { type: 'system' };
}

/**
 * The operator (the CLI) or the server's own jobs acting on one tenant: no key. Scopes do not
 * limit the operator; what may be done is decided by the command.
 */
export function operator(tenantId: string, environment: Environment = 'live'): Actor {
  return { tenantId, environment, keyId: null, lineageId: null, scopes: [] };
}
