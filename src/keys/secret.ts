// Secret key format: sk_<environment>_<32 random base62><6-char base62 CRC32 of all before it>.
// The checksum lets us refuse a mistyped or truncated key without a database look-up, and
// lets secret scanners find leaked keys with few false alarms (as GitHub's tokens do).
import * as crypto from 'node:crypto';
import { crc32 } from 'node:zlib';
import { randomBase62, toBase62 } from '../ids.ts';
import type { Environment } from '../tenancy.ts';

const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const SECRET_PATTERN = /^sk_(live|test)_([0-9A-Za-z]{38,200})$/;

function checksum(body: string): string {
  return toBase62(crc32(body), CHECKSUM_LENGTH);
}

export function generateSecret(environment: Environment): string {
  const body = `sk_${environment}_${randomBase62(RANDOM_LENGTH)}`;
  return body + checksum(body);
}

/** The environment a well-formed secret names, or null for a malformed one or a bad checksum. */
export function parseSecret(secret: string): Environment | null {
  const match = SECRET_PATTERN.exec(secret);
  if (!match) return null;
  const body = secret.slice(0, -CHECKSUM_LENGTH);
  if (checksum(body) !== secret.slice(-CHECKSUM_LENGTH)) return null;
  return match[1] as Environment;
}

// crypto.hash (Node 20.12+) is one native call; a Hash object costs several times more, on a
// path every request takes.
const oneShotHash = (crypto as { hash?: typeof crypto.hash }).hash;

/** The secret's SHA-256 as base64: what the key cache is keyed by. */
export function secretDigest(secret: string): string {
  return oneShotHash
    ? oneShotHash('sha256', secret, 'base64')
    : crypto.createHash('sha256').update(secret).digest('base64');
}

/** The secret's SHA-256, as the database stores and looks it up. */
export function hashSecret(secret: string): Buffer {
  return Buffer.from(secretDigest(secret), 'base64');
}

export function redactSecret(secret: string): string {
  const environment = secret.startsWith('sk_live_') ? 'live' : 'test';
  return `sk_${environment}_…${secret.slice(-4)}`;
}
