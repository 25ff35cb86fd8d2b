// One delivery attempt over HTTP, signed the Standard Webhooks way: headers webhook-id (the
// event id, the same on every retry), webhook-timestamp (this attempt) and webhook-signature
// (HMAC-SHA256 of "id.timestamp.body" with the endpoint's whsec_ secret).
import { systemClock, type Clock } from '../clock.ts';
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import {
  DestinationRefusedError,
  pinnedLookup,
  resolveDestination,
  type Destination,
  type DestinationPolicy,
} from './destination.ts';
import { parseRetryAfter } from './retry.ts';

export const ATTEMPT_TIMEOUT_MS = 10_000;
const RESPONSE_EXCERPT_BYTES = 1024;
const USER_AGENT = 'billing-api-webhooks/1';

export interface WebhookMessage {
  /** The event id: receivers deduplicate on it. */
  id: string;
  /** JSON `{ type, timestamp, data }`. */
  body: string;
}

export interface AttemptOutcome {
  ok: boolean;
  attemptedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
  responseBody: string | null;
  /** The receiver's Retry-After, in milliseconds from now. */
  retryAfterMs: number | null;
}

interface Response {
  status: number;
  body: Buffer;
  retryAfter: string | undefined;
}

function post(
  destination: Destination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const transport = destination.url.protocol === 'https:' ? https : http;
    // A fresh connection to the address that was checked (no pooled socket, no second DNS
    // answer); redirects are not followed, so a 3xx is a failure like any other non-2xx.
    const request = transport.request(destination.url, {
      method: 'POST',
      headers,
      agent: false,
      lookup: pinnedLookup(destination),
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`no response within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        response.destroy();
        resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES),
          retryAfter: response.headers['retry-after'],
        });
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // The excerpt is all we keep; the rest of a large body is not worth waiting for.
        if (size >= RESPONSE_EXCERPT_BYTES) finish();
      });
      response.on('end', finish);
      // A body cut short (timeout, reset) still leaves the status the receiver gave.
      response.on('error', finish);
      response.on('close', finish);
    });
    request.end(body);
  });
}

function describeError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (typeof code === 'string') return `connection error: ${code}`;
  return message;
}

/** Sends the message once; never throws: every failure is part of the outcome. */
export async function sendWebhook(
  url: string,
  secret: string,
  message: WebhookMessage,
  policy: DestinationPolicy,
  timeoutMs = ATTEMPT_TIMEOUT_MS,
  clock: Clock = systemClock,
): Promise<AttemptOutcome> {
  const attemptedAt = clock.now();
  const started = performance.now();
  const outcome = (fields: Partial<AttemptOutcome>): AttemptOutcome => ({
    ok: false,
    attemptedAt,
    durationMs: Math.round(performance.now() - started),
    responseStatus: null,
    error: null,
    responseBody: null,
    retryAfterMs: null,
    ...fields,
  });
  try {
    // Checked again at every attempt: the name may resolve elsewhere since the endpoint was made.
    const destination = await resolveDestination(url, policy);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': message.id,
      'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(message.id, attemptedAt, message.body),
    };
    const response = await post(destination, headers, message.body, timeoutMs);
    const ok = response.status >= 200 && response.status < 300;
    return outcome({
      ok,
      responseStatus: response.status,
      error: ok ? null : `the receiver answered ${response.status}`,
      // PostgreSQL text cannot hold NUL; an excerpt is for reading anyway.
      responseBody: response.body.toString('utf8').replace(/\0/g, ''),
      retryAfterMs: ok ? null : parseRetryAfter(response.retryAfter, clock.nowMs()),
    });
  } catch (error) {
    if (error instanceof DestinationRefusedError) return outcome({ error: error.message });
    return outcome({ error: describeError(error) });
  }
}
