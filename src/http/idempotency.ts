// HTTP's part of writes: it reads the Idempotency-Key header and fingerprints the request,
// hands both to the service with HTTP's policy for kept results (./kept-results.ts), whose
// unit of work (src/db/unit-of-work.ts) claims the key and keeps the result in the write's
// transaction, and sends the answer. A replay carries `Idempotent-Replayed: true`.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { canonicalJson } from '../canonical-json.ts';
import type { WriteRequest, Written } from '../db/unit-of-work.ts';
import { IdempotencyKeyInvalidError } from '../errors.ts';
import type { SecretsKeyring } from '../secrets/keyring.ts';
import { presentedSecret } from './auth.ts';
import { keyedWrite, type Answer, type KeyedWrite } from './kept-results.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's secrets key: what kept results showing a capability are sealed under. */
    secrets: SecretsKeyring;
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

function fingerprint(request: FastifyRequest): Buffer {
  const path = request.url.split('?')[0] ?? '';
  return createHash('sha256')
    .update(`${request.method}\n${path}\n${canonicalJson(request.body ?? null)}`)
    .digest();
}

/** The Idempotency-Key of this write, if it has one, with HTTP's policy for its result. */
function keyOf(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
): KeyedWrite | undefined {
  const key = readIdempotencyKey(request);
  if (key === undefined || request.actor.keyId === null) return undefined;
  return keyedWrite(request, reply, status, {
    key,
    fingerprint: fingerprint(request),
    callerSecret: presentedSecret(request),
    secrets: request.server.secrets,
  });
}

function sendAnswer(reply: FastifyReply, answer: Answer): FastifyReply {
  return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
}

/** Runs a service's write for this request and sends its outcome (`status` on success). */
export async function sendWrite<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  write: (request: WriteRequest) => Promise<Written<T>>,
): Promise<FastifyReply> {
  const idempotency = keyOf(request, reply, status);
  const written = await write({ actor: request.actor, idempotency });
  if (written.replayed) reply.header('idempotent-replayed', 'true');
  if (idempotency?.answer) return sendAnswer(reply, idempotency.answer);
  if (written.replayed) throw new Error('a write was replayed without an answer');
  return reply.code(status).send(written.value);
}
