// Verifying a webhook delivery (Standard Webhooks): `webhook-signature` holds one or more
// `v1,<base64>` HMAC-SHA256 signatures of "<webhook-id>.<webhook-timestamp>.<raw body>" made with
// the endpoint's secret (`whsec_<base64 key>`); the timestamp must be recent, so a captured
// delivery cannot be replayed later. Web Crypto only: runs on Node ≥ 20, Deno, Bun and workers.
import type { WebhookPayload } from './types.ts';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The time to compare with (default: now). */
  now?: Date;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? entry[0] : entry;
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Equal strings, compared in a time that does not depend on where they differ. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>" with the whsec_ secret's key. */
async function sign(secret: string, id: string, timestamp: string, raw: Uint8Array) {
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + raw.length);
  signed.set(prefix);
  signed.set(raw, prefix.length);
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey(
      'raw',
      base64ToBytes(secret.replace(/^whsec_/, '')),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
  } catch {
    throw new WebhookVerificationError('the secret is not a whsec_ key');
  }
  return bytesToBase64(new Uint8Array(await crypto.subtle.sign('HMAC', key, signed)));
}

/**
 * Checks a delivery's signature and timestamp and returns its payload. `body` must be the raw
 * request body as received (not re-serialised JSON). Throws WebhookVerificationError.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: HeaderSource,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookPayload> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      'missing webhook-id, webhook-timestamp or webhook-signature',
    );
  }
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  }
  const raw = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const expected = await sign(secret, id, timestamp, raw);
  const matches = signatures
    .split(' ')
    .some((entry) => entry.startsWith('v1,') && constantTimeEqual(entry.slice(3), expected));
  if (!matches) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(new TextDecoder().decode(raw)) as WebhookPayload;
}

export interface SignOptions {
  /** The webhook-id, which the API sets to the event's id (default: a random `evt_test_…`). */
  id?: string;
  /** The webhook-timestamp (default: now). */
  timestamp?: Date;
}

/** A delivery as the API would send it: the raw body and the three signing headers. */
export interface SignedWebhook {
  body: string;
  headers: { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };
}

/**
 * Signs a payload as the API signs its deliveries, for tests of your webhook handler: post
 * `body` with `headers` to it, and `verifyWebhook` (or any Standard Webhooks library) with the
 * same secret accepts it. A string payload is sent as it is; anything else as its JSON.
 */
export async function signWebhook(
  payload: WebhookPayload | string,
  secret: string,
  options: SignOptions = {},
): Promise<SignedWebhook> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const id = options.id ?? `evt_test_${crypto.randomUUID().replaceAll('-', '')}`;
  const timestamp = String(Math.floor((options.timestamp ?? new Date()).getTime() / 1000));
  const signature = await sign(secret, id, timestamp, new TextEncoder().encode(body));
  return {
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${signature}`,
    },
  };
}
