// Console roles (docs/console.md, "Roles"): what each may do, in the API's own scopes, so that
// a console user's writes pass the same checks in the services as an API key's would; plus the
// console's own permission to manage its users.
import { SCOPES, type Scope } from '../keys/scopes.ts';

export const ROLES = ['admin', 'finance', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/**
 * What a console page or action needs: an API scope, managing the console's users, or retrying
 * a webhook delivery (finance retries deliveries without holding webhooks:write, which manages
 * endpoints).
 */
export type Permission = Scope | 'users:manage' | 'deliveries:retry';

const ADMIN_ONLY: readonly Scope[] = [
  'keys:read',
  'keys:write',
  'settings:read',
  'settings:write',
  'webhooks:write',
];

/**
 * admin: everything. finance: every billing object and report, but no keys, settings or
 * webhook endpoints (it sees their deliveries). viewer: finance's reading, and nothing else.
 */
export function scopesOf(role: Role): readonly Scope[] {
  if (role === 'admin') return SCOPES;
  const billing = SCOPES.filter((scope) => !ADMIN_ONLY.includes(scope));
  return role === 'finance' ? billing : billing.filter((scope) => scope.endsWith(':read'));
}

export function permits(role: Role, permission: Permission): boolean {
  if (permission === 'users:manage') return role === 'admin';
  if (permission === 'deliveries:retry') return role !== 'viewer';
  return scopesOf(role).includes(permission);
}
