// What HTTP keeps under an Idempotency-Key, and to whom it replays it (docs/api.md,
// "Idempotent requests"). The unit of work (src/db/unit-of-work.ts) claims the key and writes
// what this file hands it in the write's own transaction; the bytes are made here, before
// commit, by the route's response schema, and the same bytes are sent: what is kept is what
// was sent.
// - A finished request is replayed only to a caller that may see it: the same API key, or a
//   key of the same rotation lineage holding the scope the operation requires.
// - A sealed result is replayed only to the very key that made the request; to any other key,
//   a rotated one included, it is 422 and nothing is done. A result that carries a secret is
//   sealed under the calling key's own secret, one that shows a capability URL under the
//   server's secrets key (src/secrets/kept-results.ts): a link is handed to whoever asked for
//   it, not to every key that could read the invoice later.
// - Refusals a client can fix or retry (validation, 409, 429, 5xx) are not kept; other
//   outcomes (success, 404, 410, 422) are.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Confidentiality, IdempotentWrite, KeptResult } from '../db/unit-of-work.ts';
import { ApiError, IdempotencyKeyReusedError } from '../errors.ts';
import { openResult, sealResult, type ResultSlot } from '../secrets/kept-results.ts';
import type { SecretsKeyring } from '../secrets/keyring.ts';
import { envelope } from './error-handler.ts';

/** A response as it is sent, and kept for replay. */
export interface Answer {
  status: number;
  /** JSON text, as the route's response schema (or the error envelope) serialises it. */
  body: string;
}

/** A write's Idempotency-Key, as HTTP brings it, and the answer it made or found. */
export interface KeyedWrite extends IdempotentWrite {
  /** The answer sent for this write: the one kept, or the one replayed. */
  readonly answer: Answer | undefined;
}

export interface KeyedRequest {
  key: string;
  /** SHA-256 of method, path and canonical body: the same key with another request is 422. */
  fingerprint: Buffer;
  /** The calling key's secret: what a secret-bearing result is sealed under. Never stored. */
  callerSecret: string;
  /** The server's secrets key: what a result showing a capability is sealed under. */
  secrets: SecretsKeyring;
}

function isKept(status: number): boolean {
  return status < 400 || status === 404 || status === 410 || status === 422;
}

/** The Idempotency-Key policy of one request, answering `status` on success. */
export function keyedWrite(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  keyed: KeyedRequest,
): KeyedWrite {
  const { actor } = request;
  const requiredScope = request.routeOptions.config.scope ?? null;
  let answer: Answer | undefined;

  function kept(sent: Answer, confidentiality: Confidentiality, slot: ResultSlot): KeptResult {
    answer = sent;
    return {
      fingerprint: keyed.fingerprint,
      status: sent.status,
      body:
        confidentiality === 'none'
          ? sent.body
          : sealResult(sent.body, confidentiality, keyed.callerSecret, keyed.secrets, slot),
      keyId: actor.keyId!,
      lineageId: actor.lineageId!,
      requiredScope,
      sealed: confidentiality !== 'none',
    };
  }

  return {
    key: keyed.key,
    get answer() {
      return answer;
    },
    replay(stored, slot) {
      const reused = new IdempotencyKeyReusedError(
        'This Idempotency-Key was used with a different request (method, path or body) or by another API key.',
      );
      if (!stored.fingerprint.equals(keyed.fingerprint)) throw reused;
      const sameKey = stored.keyId === actor.keyId;
      if (stored.sealed) {
        if (!sameKey) throw reused;
        const body = openResult(stored.body, keyed.callerSecret, keyed.secrets, slot);
        answer = { status: stored.status, body };
        return;
      }
      const sameLineage =
        stored.lineageId === actor.lineageId &&
        (stored.requiredScope === null ||
          (actor.scopes as readonly string[]).includes(stored.requiredScope));
      if (!sameKey && !sameLineage) throw reused;
      answer = { status: stored.status, body: stored.body };
    },
    // The route's response schema serialises it: what is kept is what is sent.
    keep: (value, confidentiality, slot) =>
      kept({ status, body: reply.code(status).serialize(value) as string }, confidentiality, slot),
    keepRefusal(error, slot) {
      if (!(error instanceof ApiError) || !isKept(error.status)) return undefined;
      const body = JSON.stringify(envelope(error, request.id));
      return kept({ status: error.status, body }, 'none', slot);
    },
  };
}
