// HTTP's part of writes: it reads the Idempotency-Key header and fingerprints the request,
// hands both to the service (whose unit of work, src/db/unit-of-work.ts, claims the key,
// stores the result and decides on replays), and sends what came back. A replay carries
// `Idempotent-Replayed: true`.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Sealer, StoredResponse, WriteRequest, Written } from '../db/unit-of-work.ts';
import { IdempotencyKeyInvalidError } from '../errors.ts';
import { presentedSecret } from './auth.ts';
import { envelope } from './error-handler.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's secrets key: what stored results showing a capability are sealed under. */
    secrets: Sealer;
  }
}

const HEADER = 'idempotency-key';
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

function readIdempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers[HEADER];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !PRINTABLE_ASCII.test(raw)) {
    throw new IdempotencyKeyInvalidError(
      'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      { param: 'Idempotency-Key' },
    );
  }
  return raw;
}

/** JSON with object keys sorted, so that key order does not change a request's fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function fingerprint(request: FastifyRequest): Buffer {
  const path = request.url.split('?')[0] ?? '';
  return createHash('sha256')
    .update(`${request.method}\n${path}\n${canonicalJson(request.body ?? null)}`)
    .digest();
}

/** The write as the service's unit of work takes it, answering with `status` on success. */
function writeRequest(request: FastifyRequest, reply: FastifyReply, status: number): WriteRequest {
  const key = readIdempotencyKey(request);
  if (key === undefined) return { actor: request.actor };
  return {
    actor: request.actor,
    idempotency: {
      key,
      fingerprint: fingerprint(request),
      callerSecret: presentedSecret(request),
      secrets: request.server.secrets,
      requiredScope: request.routeOptions.config.scope ?? null,
      // The route's response schema serialises it: what is stored is what is sent.
      respond: (value) => ({ status, body: reply.code(status).serialize(value) as string }),
      respondError: (error) => ({
        status: error.status,
        body: JSON.stringify(envelope(error, request.id)),
      }),
    },
  };
}

function sendStored(reply: FastifyReply, response: StoredResponse): FastifyReply {
  return reply.code(response.status).type('application/json; charset=utf-8').send(response.body);
}

/** Runs a service's write for this request and sends its outcome (`status` on success). */
export async function sendWrite<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  write: (request: WriteRequest) => Promise<Written<T>>,
): Promise<FastifyReply> {
  const written = await write(writeRequest(request, reply, status));
  if (written.replayed) {
    reply.header('idempotent-replayed', 'true');
    return sendStored(reply, written.response);
  }
  if (written.response) return sendStored(reply, written.response);
  return reply.code(status).send(written.value);
}
