// The scopes a key can hold. The first four come from the original specification; the others
// are additive (webhooks, keys).
export const SCOPES = [
  'customers:read',
  'customers:write',
  'invoices:read',
  'invoices:write',
  'webhooks:read',
  'webhooks:write',
  'keys:read',
  'keys:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
