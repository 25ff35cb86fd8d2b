// The scopes a key can hold. The first four come from the original specification; the others
// are additive (webhooks, keys, settings; then subscriptions for the catalogue, subscriptions and
// test clocks, and usage: an ingestion job holds usage:write and nothing else).
import { ScopeInsufficientError } from '../errors.ts';

export const SCOPES = [
  'customers:read',
  'customers:write',
  'invoices:read',
  'invoices:write',
  'webhooks:read',
  'webhooks:write',
  'keys:read',
  'keys:write',
  'settings:read',
  'settings:write',
  'subscriptions:read',
  'subscriptions:write',
  'usage:read',
  'usage:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** For operations whose scope depends on the request (events): throws unless the actor holds it. */
export function requireScope(actor: { scopes: readonly Scope[] }, scope: Scope): void {
  if (!actor.scopes.includes(scope)) throw new ScopeInsufficientError(scope);
}
