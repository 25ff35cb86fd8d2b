// Authenticated encryption of short secrets at rest: AES-256-GCM (Node's crypto), with a
// context string as associated data, so a sealed value copied into another row (another
// endpoint, another idempotency record) does not open there.
//
// Text form: `v1.<keyId>.<base64url(iv ‖ ciphertext ‖ tag)>`; keyId names the key that sealed
// it, which is how a key ring finds the right key during a rotation.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function seal(plain: string, key: Buffer, keyId: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const sealed = Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  return `v1.${keyId}.${sealed}`;
}

/** The key id a sealed value names, or null when the text is not a sealed value. */
export function sealedKeyId(sealed: string): string | null {
  const parts = sealed.split('.');
  return parts.length === 3 && parts[0] === 'v1' ? parts[1]! : null;
}

/** The plain text; throws when the key or the context is not the one it was sealed with. */
export function open(sealed: string, key: Buffer, context: string): string {
  const parts = sealed.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1') throw new Error('not a sealed value');
  const raw = Buffer.from(parts[2]!, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  const body = raw.subarray(IV_BYTES, raw.length - TAG_BYTES);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
}

/** A 32-byte key for one purpose, derived (HKDF-SHA256) from a secret of at least 128 bits. */
export function deriveKey(secret: Buffer | string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));
}
