// The hottest writes (creating a draft invoice) are planned from reads that need no lock and
// then written together: every such write planned while the event loop was busy goes into one
// statement, sent outside any transaction, which is a transaction by itself. Each write's rows,
// its events and, with an Idempotency-Key, its stored result are gated on the same condition,
// so each write is all or nothing on its own, and the batch commits once: one round trip, one
// executor start-up and one WAL flush for all of them instead of one each.
//
// Why batch: on a small machine the database's backends and the API's event loop share the
// cores, and every statement sent wakes a backend that takes the core from the event loop; a
// batch wakes one. Writes are never held back to make a batch: whatever was planned by the time
// a connection is free goes, and a lone write goes alone.
//
// A write is done, or not done and answered by sendWrite's general path (which replays,
// refuses with 409 or 422, answers 404 or does the work in a transaction of its own):
//   - its Idempotency-Key is claimed by the statement, as claimKey does: the key's in-flight
//     lock only if it is free, the stored result only if none is stored (ON CONFLICT DO
//     NOTHING); a key held, or a result stored already, leaves the write undone;
//   - `requires` holds for it (its customer exists): a plain read, enough where the row it
//     reads is never deleted;
//   - a batch statement that fails (it should not) leaves every write of it undone.
import pg from 'pg';
import type { Db } from '../db/pool.ts';
import { eventColumns, eventsCte, type QueuedEvent } from '../events/outbox.ts';

/** A write's stored result under its Idempotency-Key, as the statement claims it. */
export interface ClaimedKey {
  tenantId: string;
  environment: string;
  key: string;
  /** The advisory lock's text (the key's in-flight mark). */
  lock: string;
  fingerprint: Buffer;
  status: number;
  /** The response body, JSON text, stored exactly as sent. */
  body: string;
}

export interface BatchedWrite {
  statement: BatchedStatement;
  /** The write's own fields, named as the statement's request columns. */
  fields: Record<string, unknown>;
  events: QueuedEvent[];
  /** The response body (rendered as JSON when the write is done). */
  body: unknown;
}

interface Pending {
  write: BatchedWrite;
  claim: ClaimedKey | undefined;
  resolve: (done: boolean) => void;
  reject: (error: unknown) => void;
}

/** At most this many writes in one statement (a statement of some hundred kilobytes). */
const MAX_BATCH = 64;

export class BatchedStatement {
  readonly #name: string;
  readonly #text: string;
  readonly #queues = new WeakMap<Db, Pending[]>();

  /**
   * `columns`: the write's own request columns (a json_to_recordset column list), which must
   * include `tenant_id text COLLATE "C"` and `environment text`; `requires(r)`: a condition on
   * request row `r` that must hold for the write to be done; `ctes(go)`: the write's CTEs
   * (named, comma-separated), which read the requests to write from the relation `go`.
   */
  constructor(
    name: string,
    spec: { columns: string; requires: (r: string) => string; ctes: (go: string) => string },
  ) {
    this.#name = name;
    this.#text = `WITH -- spans tenants: batched drafts
  request AS (
    SELECT * FROM json_to_recordset($1::json)
      AS r(n int, ${spec.columns}, key text COLLATE "C", fingerprint text, status_code int,
           lock text)),
  body AS (
    SELECT (o - 1)::int AS n, b FROM json_array_elements($2::json) WITH ORDINALITY AS x(b, o)),
  claim AS (
    INSERT INTO idempotency_keys (tenant_id, environment, key, fingerprint, status_code,
                                  response_body)
    SELECT r.tenant_id, r.environment, r.key, decode(r.fingerprint, 'hex'), r.status_code,
           b.b::text
      FROM request r JOIN body b ON b.n = r.n
     WHERE r.key IS NOT NULL AND ${spec.requires('r')}
       AND pg_try_advisory_xact_lock(hashtextextended(r.lock, 0))
    ON CONFLICT DO NOTHING
    RETURNING tenant_id, environment, key),
  go AS (
    SELECT r.* FROM request r
     WHERE ${spec.requires('r')}
       AND (r.key IS NULL
            OR EXISTS (SELECT 1 FROM claim c
                        WHERE c.tenant_id = r.tenant_id AND c.environment = r.environment
                          AND c.key = r.key))),
  ${spec.ctes('go')},
  ${eventsCte(3, 'WHERE q.n IN (SELECT n FROM go)', 9)}
SELECT n FROM go`;
  }

  /** A write of this statement: its fields, its events and the response body. */
  plan(fields: Record<string, unknown>, events: QueuedEvent[], body: unknown): BatchedWrite {
    return { statement: this, fields, events, body };
  }

  /**
   * Writes it with whatever else is planned meanwhile; true when it was done, false when the
   * general path must answer. Rejects when no connection could be had, and, for a write
   * without an Idempotency-Key, when the statement's outcome is unknown (its connection broke,
   * or the error was not the server's).
   */
  run(db: Db, write: BatchedWrite, claim: ClaimedKey | undefined): Promise<boolean> {
    return new Promise((resolve, reject) => {
      let queue = this.#queues.get(db);
      if (!queue) {
        queue = [];
        this.#queues.set(db, queue);
      }
      queue.push({ write, claim, resolve, reject });
      // One drain per event-loop turn that planned writes; a drain takes what is queued once it
      // has a connection, so writes planned while the pool was busy go together.
      if (queue.length === 1) setImmediate(() => void this.#drain(db, queue));
    });
  }

  async #drain(db: Db, queue: Pending[]): Promise<void> {
    let client;
    try {
      client = await db.connect();
    } catch (error) {
      for (const pending of queue.splice(0)) pending.reject(error);
      return;
    }
    const batch = takeBatch(queue);
    if (queue.length > 0) setImmediate(() => void this.#drain(db, queue));
    let done: Set<number> | undefined;
    let broken = false;
    /** Set when whether the statement committed is not known. */
    let failure: unknown;
    try {
      const { rows } = await client.query<{ n: number }>({
        name: this.#name,
        text: this.#text,
        values: this.#values(batch.writes),
      });
      done = new Set(rows.map((row) => row.n));
    } catch (error) {
      // The server's error says nothing of the batch was written. It comes before the
      // statement's transaction has ended (and its key locks are released): a query after it
      // on the same connection runs once it has, so no write answered by the general path
      // meanwhile can find its own key still in flight.
      try {
        await client.query('SELECT 1');
      } catch {
        broken = true;
      }
      // A broken connection, or an error not the server's (a result node-postgres could not
      // read is reported only after the implicit COMMIT), leaves the outcome unknown.
      if (broken || !(error instanceof pg.DatabaseError)) failure = error;
    } finally {
      client.release(broken);
    }
    batch.writes.forEach((pending, n) => {
      if (done !== undefined) pending.resolve(done.has(n));
      // Outcome unknown: a write with an Idempotency-Key learns it on the general path (its
      // result is stored, or its key is free); one without could only be written a second
      // time, so it gets the failure (503, as a COMMIT that fails does), and its client decides.
      else if (failure !== undefined && pending.claim === undefined) pending.reject(failure);
      else pending.resolve(false);
    });
    for (const pending of batch.repeated) pending.resolve(false);
  }

  #values(batch: readonly Pending[]): unknown[] {
    const requests = batch.map(({ write, claim }, n) => ({
      ...write.fields,
      n,
      key: claim?.key ?? null,
      fingerprint: claim?.fingerprint.toString('hex') ?? null,
      status_code: claim?.status ?? null,
      lock: claim?.lock ?? null,
    }));
    const bodies = batch.map(({ claim }) => claim?.body ?? 'null');
    const events = batch.flatMap(({ write }) => write.events);
    const eventRequests = batch.flatMap(({ write }, n) => write.events.map(() => n));
    return [
      JSON.stringify(requests),
      `[${bodies.join(',')}]`,
      ...eventColumns(events),
      eventRequests,
    ];
  }
}

/**
 * Up to MAX_BATCH writes from the queue, one per Idempotency-Key: a repeat of a key already in
 * the batch is not written with it (the general path answers it, finding the key in flight or
 * its result stored).
 */
function takeBatch(queue: Pending[]): { writes: Pending[]; repeated: Pending[] } {
  const writes: Pending[] = [];
  const repeated: Pending[] = [];
  const keys = new Set<string>();
  while (writes.length < MAX_BATCH && queue.length > 0) {
    const pending = queue.shift()!;
    const lock = pending.claim?.lock;
    if (lock !== undefined && keys.has(lock)) {
      repeated.push(pending);
      continue;
    }
    if (lock !== undefined) keys.add(lock);
    writes.push(pending);
  }
  return { writes, repeated };
}
