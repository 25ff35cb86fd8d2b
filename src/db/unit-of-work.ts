// The one write path. Every change, whichever door it comes through (HTTP, the CLI, the
// worker), runs as a unit of work: begin; claim the Idempotency-Key, if the request has one;
// do the work; write the events it recorded (the outbox) and the stored result; commit. A
// crash therefore leaves the change, its events and its stored result all together or none.
//
// Idempotency (docs/api.md, "Idempotent requests"):
// - A transaction-scoped advisory lock on (tenant, environment, key) marks the key in flight
//   on the database itself, so a second request on any instance sees it taken (409) instead
//   of doing the work twice. COMMIT releases it, after which the stored result is visible.
// - A finished request is replayed only to a caller that may see it: the same API key, or a
//   key of the same rotation lineage holding the scope the operation requires.
// - A sealed result is replayed only to the very key that made the request; to any other key,
//   a rotated one included, it is 422 and nothing is done. A result that carries a secret (an
//   API key's, a webhook endpoint's) is sealed under a key derived from the calling key's own
//   secret, so only that key can open it and the database never holds the secret in clear. A
//   result that shows a capability URL (an invoice's hosted URL) is sealed under the server's
//   secrets key, which seals the link's token at rest anyway: a link is handed to whoever
//   asked for it, not to every key that could read the invoice later.
// - Refusals a client can fix or retry (validation, 409, 429, 5xx) are not stored; other
//   outcomes (success, 404, 422) are.
import { ApiError, IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../errors.ts';
import { newId } from '../ids.ts';
import { deriveKey, open, seal, sealedKeyId } from '../secrets/sealed.ts';
import type { Actor } from '../tenancy.ts';
import type { Db, Tx } from './pool.ts';
import {
  claimKey,
  deleteStoredResult,
  insertOutcome,
  purgeStoredResults,
  type KeySlot,
  type NewStoredResult,
  type OutboxEvent,
  type StoredResult,
} from './store.ts';

export const RETENTION_HOURS = 24;

/** The key id of results sealed under the caller's key (the server's keys have their own). */
const CALLER = 'caller';

/** A response as it is sent, and stored for replay. */
export interface StoredResponse {
  status: number;
  /** JSON text, as the route's response schema serialises it. */
  body: string;
}

/** What an Idempotency-Key adds to a write (HTTP reads it from the request). */
export interface IdempotentRequest {
  key: string;
  /** SHA-256 of method, path and canonical body: the same key with another request is 422. */
  fingerprint: Buffer;
  /** The calling key's secret: what a secret-bearing result is sealed under. Never stored. */
  callerSecret: string;
  /** The server's secrets key (src/secrets/keyring.ts): what a capability is sealed under. */
  secrets: Sealer;
  /** The scope the operation requires (null: any key). */
  requiredScope: string | null;
  /** The response for the work's result, as the route's schema serialises it. */
  respond(value: unknown): StoredResponse;
  /** The response for a refusal (the error envelope). */
  respondError(error: ApiError): StoredResponse;
}

/** Seals and opens values under the server's secrets key. */
export interface Sealer {
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
}

export interface WriteRequest {
  /** Who writes: an API key, or the operator (keyId null). */
  actor: Actor;
  idempotency?: IdempotentRequest | undefined;
}

export type Written<T> =
  | { replayed: false; value: T; response: StoredResponse | undefined }
  | { replayed: true; response: StoredResponse };

/** What the work sees: the transaction, who acts, and where its events go. */
export interface UnitOfWork {
  readonly tx: Tx;
  readonly actor: Actor;
  /** Records an event of this unit of work's tenant and environment, rendered now. */
  event(type: string, object: { id: string }, extra?: Record<string, unknown>): void;
  /** The result carries a secret: stored sealed under the caller's key, replayed only to it. */
  carriesSecret(): void;
  /**
   * The result shows a capability URL (a hosted URL): stored sealed under the server's key,
   * replayed only to the very key that made the request.
   */
  showsCapability(): void;
}

type Sealing = 'none' | 'server' | 'caller';

class Work implements UnitOfWork {
  events: OutboxEvent[] = [];
  sealing: Sealing = 'none';
  /** The stored result, written with the events at commit. */
  stored: { slot: KeySlot; result: NewStoredResult } | null = null;
  readonly tx: Tx;
  readonly actor: Actor;

  constructor(tx: Tx, actor: Actor) {
    this.tx = tx;
    this.actor = actor;
  }

  event(type: string, object: { id: string }, extra: Record<string, unknown> = {}): void {
    this.events.push({
      tenantId: this.actor.tenantId,
      environment: this.actor.environment,
      id: newId('evt'),
      type,
      objectId: object.id,
      data: JSON.stringify({ object, ...extra }),
    });
  }

  carriesSecret(): void {
    this.sealing = 'caller';
  }

  showsCapability(): void {
    if (this.sealing === 'none') this.sealing = 'server';
  }

  /** Forgets what a rolled-back attempt recorded. */
  reset(): void {
    this.events = [];
    this.sealing = 'none';
    this.stored = null;
  }
}

function isStored(status: number): boolean {
  return status < 400 || status === 404 || status === 410 || status === 422;
}

function slotOf(actor: Actor, key: string): KeySlot {
  return { tenantId: actor.tenantId, environment: actor.environment, key };
}

/** The key a secret-bearing result is sealed under: only the calling key's secret opens it. */
function sealingKey(callerSecret: string, slot: KeySlot): Buffer {
  return deriveKey(callerSecret, `idempotent result\n${slot.tenantId}\n${slot.environment}`);
}

function context(slot: KeySlot): string {
  return `${slot.tenantId}\n${slot.environment}\n${slot.key}`;
}

/** The stored response for this caller, or 422 when it is another request or not theirs. */
function replay(
  stored: StoredResult,
  request: WriteRequest,
  idempotency: IdempotentRequest,
  slot: KeySlot,
): Written<never> {
  const reused = new IdempotencyKeyReusedError(
    'This Idempotency-Key was used with a different request (method, path or body) or by another API key.',
  );
  if (!stored.fingerprint.equals(idempotency.fingerprint)) throw reused;
  const { actor } = request;
  const sameKey = stored.key_id === actor.keyId;
  if (stored.sealed) {
    if (!sameKey) throw reused;
    const body =
      sealedKeyId(stored.response_body) === CALLER
        ? open(stored.response_body, sealingKey(idempotency.callerSecret, slot), context(slot))
        : idempotency.secrets.open(stored.response_body, context(slot));
    return { replayed: true, response: { status: stored.status_code, body } };
  }
  const sameLineage =
    stored.lineage_id === actor.lineageId &&
    (stored.required_scope === null ||
      (actor.scopes as readonly string[]).includes(stored.required_scope));
  if (!sameKey && !sameLineage) throw reused;
  return { replayed: true, response: { status: stored.status_code, body: stored.response_body } };
}

/** Keeps the response to be stored at commit (sealed if it carries a secret). */
function store(
  work: Work,
  request: WriteRequest,
  idempotency: IdempotentRequest,
  slot: KeySlot,
  response: StoredResponse,
): void {
  const body =
    work.sealing === 'caller'
      ? seal(response.body, sealingKey(idempotency.callerSecret, slot), CALLER, context(slot))
      : work.sealing === 'server'
        ? idempotency.secrets.seal(response.body, context(slot))
        : response.body;
  work.stored = {
    slot,
    result: {
      fingerprint: idempotency.fingerprint,
      status: response.status,
      body,
      keyId: request.actor.keyId!,
      lineageId: request.actor.lineageId!,
      requiredScope: idempotency.requiredScope,
      sealed: work.sealing !== 'none',
    },
  };
}

/**
 * Claims the key under a fresh transaction's lock; a stored result that has not expired is
 * the answer (a replay or 422); an expired one is deleted.
 */
async function claim(
  work: Work,
  request: WriteRequest,
  idempotency: IdempotentRequest,
  slot: KeySlot,
  wait: boolean,
): Promise<Written<never> | undefined> {
  const { locked, stored } = await claimKey(work.tx, slot, wait, RETENTION_HOURS);
  if (!locked) {
    throw new IdempotencyKeyInUseError(
      'A request with this Idempotency-Key is still being processed; retry later.',
    );
  }
  if (stored && !stored.expired) return replay(stored, request, idempotency, slot);
  if (stored) await deleteStoredResult(work.tx, slot);
  return undefined;
}

async function commit(work: Work): Promise<void> {
  if (work.events.length > 0 || work.stored) {
    await insertOutcome(work.tx, work.actor, work.events, work.stored);
  }
  await work.tx.query('COMMIT');
}

/**
 * Runs `work` as one unit of work. Without an Idempotency-Key it is a transaction with its
 * events; with one, the outcome is stored with it, or the stored outcome is the answer.
 */
export async function unitOfWork<T>(
  db: Db,
  request: WriteRequest,
  work: (uow: UnitOfWork) => Promise<T>,
): Promise<Written<T>> {
  const tx = await db.connect();
  const unit = new Work(tx, request.actor);
  let broken = false;
  let committed = false;
  try {
    await tx.query('BEGIN');
    const idempotency = request.idempotency;
    if (idempotency === undefined || request.actor.keyId === null) {
      const value = await work(unit);
      await commit(unit);
      return { replayed: false, value, response: undefined };
    }
    const slot = slotOf(request.actor, idempotency.key);
    const replayed = await claim(unit, request, idempotency, slot, false);
    if (replayed) {
      await tx.query('ROLLBACK');
      return replayed;
    }
    let value: T;
    try {
      value = await work(unit);
    } catch (error) {
      if (!(error instanceof ApiError) || !isStored(error.status)) throw error;
      // The work's effects go with its transaction; the refusal is kept in a new one, under
      // the key's lock again, so a retry gets the same answer. (No savepoint on every write:
      // this path is rare, the successful one is common.)
      await tx.query('ROLLBACK');
      unit.reset();
      await tx.query('BEGIN');
      const again = await claim(unit, request, idempotency, slot, true);
      if (again) {
        await tx.query('ROLLBACK');
        return again;
      }
      store(unit, request, idempotency, slot, idempotency.respondError(error));
      await commit(unit);
      committed = true;
      throw error;
    }
    const response = idempotency.respond(value);
    store(unit, request, idempotency, slot, response);
    await commit(unit);
    return { replayed: false, value, response };
  } catch (error) {
    // A ROLLBACK after a COMMIT that failed only warns; one that fails means a broken link.
    if (!committed) {
      await tx.query('ROLLBACK').catch(() => {
        broken = true;
      });
    }
    throw error;
  } finally {
    tx.release(broken);
  }
}

/** The value of a write that cannot have been replayed (it had no Idempotency-Key). */
export function writtenValue<T>(written: Written<T>): T {
  if (written.replayed) throw new Error('a write without an Idempotency-Key was replayed');
  return written.value;
}

/** Deletes stored results past their retention; run periodically by the worker. */
export function purgeExpiredIdempotencyKeys(db: Db): Promise<number> {
  return purgeStoredResults(db, RETENTION_HOURS);
}
