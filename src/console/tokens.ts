// The console's secret tokens (sessions, invitations): 256 random bits, base64url, stored only
// as their SHA-256. A token travels with its tenant's id in front (`ten_….<token>`): every
// look-up then names the tenant, as every key of every table does.
import { createHash, createHmac, randomBytes } from 'node:crypto';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** An invitation's token, derived from the server's key and its id: only the hash is stored. */
export function invitationToken(key: Buffer, tenantId: string, invitationId: string): string {
  return createHmac('sha256', key).update(`${tenantId}\n${invitationId}`).digest('base64url');
}

/** `ten_….<token>` → its tenant and token, or null when it is not of that form. */
export function splitTenantToken(value: string): { tenantId: string; token: string } | null {
  const match = /^(ten_[0-9A-Za-z]{1,64})\.([0-9A-Za-z_-]{43})$/.exec(value);
  return match ? { tenantId: match[1]!, token: match[2]! } : null;
}
