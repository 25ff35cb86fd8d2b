// The one write path. Every change, whichever door it comes through (HTTP, the CLI, the
// worker), runs as a unit of work: begin and claim the Idempotency-Key, if the request has one,
// with the work's first statements behind them (one round trip); do the rest of the work;
// write the events it recorded (the outbox), what follows them (webhook deliveries, document
// renders) and the kept result, and commit (one round trip). A
// crash therefore leaves the change, its events, their deliveries and its kept result all
// together or none.
//
// The unit of work keeps and finds results; it does not decide what they say. Whoever brings
// the key (HTTP: src/http/kept-results.ts) decides which outcomes are kept, turns a value or a
// refusal into the bytes to keep (before commit, so what is kept is what is sent), seals them,
// and says who may have a kept result again.
//
// A transaction-scoped advisory lock on (tenant, environment, key) marks the key in flight on
// the database itself, so a second request on any instance sees it taken (409) instead of
// doing the work twice. COMMIT releases it, after which the kept result is visible.
import { IdempotencyKeyInUseError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Actor } from '../tenancy.ts';
import type { Db, Tx } from './pool.ts';
import {
  claimKey,
  deleteStoredResult,
  insertOutcome,
  outcomeStatement,
  purgeStoredResults,
  type KeptResult,
  type KeySlot,
  type OutboxEvent,
  type OutboxFollower,
} from './store.ts';

export type { KeptResult, OutboxFollower } from './store.ts';

export const RETENTION_HOURS = 24;

/** Who may read a result again: anyone allowed to; only the server; only the calling key. */
export type Confidentiality = 'none' | 'server' | 'caller';

/** What an Idempotency-Key adds to a write, with the policy of whoever brings it. */
export interface IdempotentWrite {
  key: string;
  /** Takes a result kept earlier under the key as the answer; throws when it is not this caller's. */
  replay(kept: KeptResult, slot: KeySlot): void;
  /** The result to keep for the work's value, made before commit. */
  keep(value: unknown, confidentiality: Confidentiality, slot: KeySlot): KeptResult;
  /** The result to keep for a refusal the work threw, or undefined: kept nowhere, rethrown. */
  keepRefusal(error: unknown, slot: KeySlot): KeptResult | undefined;
}

export interface WriteRequest {
  /** Who writes: an API key, or the operator (keyId null). */
  actor: Actor;
  idempotency?: IdempotentWrite | undefined;
}

/** A write's outcome: its value, or a replay (the kept result, given to `replay`). */
export type Written<T> = { replayed: false; value: T } | { replayed: true };

/** What the work sees: the transaction, who acts, and where its events go. */
export interface UnitOfWork {
  readonly tx: Tx;
  readonly actor: Actor;
  /** Records an event of this unit of work's tenant and environment, rendered now. */
  event(type: string, object: { id: string }, extra?: Record<string, unknown>): void;
  /** The result carries a secret: kept sealed under the caller's key, replayed only to it. */
  carriesSecret(): void;
  /**
   * The result shows a capability URL (a hosted URL): kept sealed under the server's key,
   * replayed only to the very key that made the request.
   */
  showsCapability(): void;
}

let followers: OutboxFollower[] = [];
let statement: string | undefined;

/**
 * Adds a statement that follows the outbox in the outcome statement (the webhook fan-out).
 * Given once by the composition root, before the first write: the statement is prepared once.
 */
export function followOutbox(follower: OutboxFollower): void {
  if (followers.some((f) => f.name === follower.name)) return;
  if (statement !== undefined) throw new Error('the outbox is followed before the first write');
  followers = [...followers, follower];
}

class Work implements UnitOfWork {
  events: OutboxEvent[] = [];
  confidentiality: Confidentiality = 'none';
  /** The kept result, written with the events at commit. */
  kept: { slot: KeySlot; result: KeptResult } | null = null;
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
    this.confidentiality = 'caller';
  }

  showsCapability(): void {
    if (this.confidentiality === 'none') this.confidentiality = 'server';
  }

  /** Forgets what a rolled-back attempt recorded. */
  reset(): void {
    this.events = [];
    this.confidentiality = 'none';
    this.kept = null;
  }
}

/**
 * Claims the key under a fresh transaction's lock; a kept result that has not expired is the
 * answer (true: replayed, or `replay` throws); an expired one is deleted.
 */
async function claim(
  work: Work,
  idempotency: IdempotentWrite,
  slot: KeySlot,
  wait: boolean,
): Promise<boolean> {
  // BEGIN goes out with the claim: one round trip (the pool pipelines, src/db/pool.ts). The
  // claim is answered only after BEGIN is, and both must succeed.
  const [, claimed] = await Promise.all([
    work.tx.query('BEGIN'),
    claimKey(work.tx, slot, wait, RETENTION_HOURS),
  ]);
  const { locked, kept, expired } = claimed;
  if (!locked) {
    throw new IdempotencyKeyInUseError(
      'A request with this Idempotency-Key is still being processed; retry later.',
    );
  }
  if (kept && !expired) {
    idempotency.replay(kept, slot);
    return true;
  }
  if (kept) await deleteStoredResult(work.tx, slot);
  return false;
}

async function commit(work: Work): Promise<void> {
  if (work.events.length > 0 || work.kept) {
    if (work.events.length > 0 && followers.length === 0) {
      throw new Error('events written before the outbox is followed (src/composition.ts)');
    }
    statement ??= outcomeStatement(followers);
    // The outcome and COMMIT go out together: one round trip. Should the outcome fail,
    // PostgreSQL ends the failed transaction at that COMMIT with a rollback; the outcome's
    // error is what is thrown, and the COMMIT's answer is not taken for a commit.
    const outcome = insertOutcome(work.tx, statement, work.actor, work.events, work.kept);
    const committing = work.tx.query('COMMIT');
    committing.catch(() => undefined);
    await outcome;
    await committing;
    return;
  }
  await work.tx.query('COMMIT');
}

/**
 * Runs `work` as one unit of work. Without an Idempotency-Key it is a transaction with its
 * events; with one, the outcome is kept with it, or the kept outcome is the answer.
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
    const idempotency = request.idempotency;
    if (idempotency === undefined) {
      // Without a key the work's first statement is its own: BEGIN is answered first.
      await tx.query('BEGIN');
      const value = await work(unit);
      await commit(unit);
      return { replayed: false, value };
    }
    const { tenantId, environment } = request.actor;
    const slot: KeySlot = { tenantId, environment, key: idempotency.key };
    // The work's first statements go out with BEGIN and the key's claim, in their round trip,
    // and run behind them in the transaction. Should the claim find the key in use or its
    // result kept, whatever the work did is rolled back with the transaction, once the work
    // has settled: every statement it sent is answered before the transaction ends and the
    // connection goes back to the pool.
    const claiming = claim(unit, idempotency, slot, false);
    const working = work(unit);
    const settled = working.then(
      () => undefined,
      () => undefined,
    );
    let replayed: boolean;
    try {
      replayed = await claiming;
    } catch (error) {
      await settled;
      throw error;
    }
    if (replayed) {
      await settled;
      await tx.query('ROLLBACK');
      return { replayed: true };
    }
    let value: T;
    try {
      value = await working;
    } catch (error) {
      const refusal = idempotency.keepRefusal(error, slot);
      if (refusal === undefined) throw error;
      // The work's effects go with its transaction; the refusal is kept in a new one, under
      // the key's lock again, so a retry gets the same answer. (No savepoint on every write:
      // this path is rare, the successful one is common.)
      await tx.query('ROLLBACK');
      unit.reset();
      if (await claim(unit, idempotency, slot, true)) {
        await tx.query('ROLLBACK');
        return { replayed: true };
      }
      unit.kept = { slot, result: refusal };
      await commit(unit);
      committed = true;
      throw error;
    }
    unit.kept = { slot, result: idempotency.keep(value, unit.confidentiality, slot) };
    await commit(unit);
    return { replayed: false, value };
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

/** Deletes kept results past their retention; run periodically by the worker. */
export function purgeExpiredIdempotencyKeys(db: Db): Promise<number> {
  return purgeStoredResults(db, RETENTION_HOURS);
}
