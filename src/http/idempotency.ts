// Idempotency keys for every POST, PATCH and DELETE (after the IETF draft "The
// Idempotency-Key HTTP Header Field"), as one mechanism every write route goes through:
// `sendWrite` runs the route's work in a transaction and, when the request carries a key,
// stores the result in that same transaction, so a crash leaves both or neither.
//
// Concurrency: a transaction-scoped advisory lock on (tenant, environment, key) marks the key
// as in flight on the database itself, so a second request on any instance sees it taken
// (409 idempotency_key_in_use) instead of running the work twice. The lock is released by
// COMMIT, after which the stored record is visible to the next request.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Tx } from '../db/pool.ts';
import {
  discardQueuedEvents,
  eventColumns,
  EVENTS_CTE,
  takeQueuedEvents,
  writeQueuedEvents,
} from '../events/outbox.ts';
import { envelope, toApiError } from './error-handler.ts';
import { sendJsonText } from './json-text.ts';
import type { BatchedWrite } from './write-batch.ts';
import {
  ApiError,
  IdempotencyKeyInUseError,
  IdempotencyKeyInvalidError,
  IdempotencyKeyReusedError,
} from './errors.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const RETENTION_HOURS = 24;
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

export function readIdempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers[IDEMPOTENCY_HEADER];
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

// Results the client could fix or retry are not kept: refusals before the work ran
// (validation 400, 401, 403), conflicts (409), 429 and 5xx. Everything else (success, 404,
// 422) is stored and replayed.
function isStored(status: number): boolean {
  return status < 400 || status === 404 || status === 410 || status === 422;
}

interface StoredResult {
  fingerprint: Buffer;
  status_code: number;
  response_body: string;
  expired: boolean;
}

interface KeySlot {
  tenantId: string;
  environment: string;
  key: string;
  lock: string;
}

function keySlot(request: FastifyRequest, key: string): KeySlot {
  const { tenantId, environment } = request.actor;
  return { tenantId, environment, key, lock: `idem\n${tenantId}\n${environment}\n${key}` };
}

interface Claim {
  locked: boolean;
  /** What a previous holder stored under the key, if anything. */
  stored: StoredResult | undefined;
}

/**
 * Takes the key's in-flight lock for the transaction (at once or not at all, or waiting) and,
 * once it is held, reads the stored result: one round trip (claim_idempotency_key, migration
 * 0006, reads with a snapshot taken after the lock).
 */
async function claimKey(tx: Tx, slot: KeySlot, wait: boolean): Promise<Claim> {
  const { rows } = await tx.query<StoredResult & { locked: boolean }>({
    name: 'idempotency_claim',
    text: `SELECT locked, fingerprint, status_code, response_body, expired
             FROM claim_idempotency_key($1, $2, $3, $4, $5, $6)`,
    values: [slot.tenantId, slot.environment, slot.key, slot.lock, wait, RETENTION_HOURS],
  });
  const row = rows[0]!;
  return { locked: row.locked, stored: row.fingerprint === null ? undefined : row };
}

async function deleteStored(tx: Tx, slot: KeySlot): Promise<void> {
  await tx.query(
    'DELETE FROM idempotency_keys WHERE tenant_id = $1 AND environment = $2 AND key = $3',
    [slot.tenantId, slot.environment, slot.key],
  );
}

/** Answers a repeat from the store; the same key with another request is 422. */
async function replay(
  tx: Tx,
  reply: FastifyReply,
  stored: StoredResult,
  print: Buffer,
): Promise<FastifyReply> {
  await tx.query('ROLLBACK');
  if (!stored.fingerprint.equals(print)) {
    throw new IdempotencyKeyReusedError(
      'This Idempotency-Key was used with a different request (method, path or body).',
    );
  }
  reply.header('idempotent-replayed', 'true');
  return sendJsonText(reply, stored.response_body, stored.status_code);
}

/** A stored result's values, in the order of STORE_SQL's columns. */
function storedValues(slot: KeySlot, print: Buffer, status: number, body: string): unknown[] {
  return [slot.tenantId, slot.environment, slot.key, print, status, body];
}

const STORED_COLUMNS = 'tenant_id, environment, key, fingerprint, status_code, response_body';
const STORE_SQL = `INSERT INTO idempotency_keys (${STORED_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`;
const STORE_WITH_EVENTS_SQL = `WITH ${EVENTS_CTE}
  INSERT INTO idempotency_keys (${STORED_COLUMNS}) VALUES ($7, $8, $9, $10, $11, $12)`;

// --- writes done in batches (src/http/write-batch.ts) --------------------------------------

/**
 * A write's batched plan, from reads outside any transaction; undefined, or an API error, when
 * the general path must answer (it does the work again in a transaction, and answers or stores
 * the refusal as usual).
 */
export type WritePlanner = (db: Db) => Promise<BatchedWrite | undefined>;

/** The write's batched plan; undefined when the general path must answer. */
async function planWrite(db: Db, planner: WritePlanner): Promise<BatchedWrite | undefined> {
  try {
    return await planner(db);
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

/** Runs a planned write in a batch: the body if it was written, else undefined. */
async function writeInBatch(
  request: FastifyRequest,
  db: Db,
  status: number,
  key: string | undefined,
  write: BatchedWrite,
): Promise<string | undefined> {
  const body = JSON.stringify(write.body);
  const slot = key === undefined ? undefined : keySlot(request, key);
  const claim = slot && { ...slot, fingerprint: fingerprint(request), status, body };
  return (await write.statement.run(db, write, claim)) ? body : undefined;
}

/**
 * Runs a write: `work` gets a transaction and returns the response body; the reply is
 * `status` with that body. With an Idempotency-Key, the result is stored with the work, and
 * a repeat is answered from the store.
 */
export async function sendWrite(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Db,
  status: number,
  work: (tx: Tx) => Promise<unknown>,
  /** The same write planned for a batch, tried first (src/http/write-batch.ts). */
  planner?: WritePlanner,
): Promise<FastifyReply> {
  const key = readIdempotencyKey(request);
  // Planned and written before a connection is taken: the plan's reads use the pool
  // themselves, and a batch has a connection of its own.
  const planned = planner && (await planWrite(db, planner));
  if (planned) {
    const body = await writeInBatch(request, db, status, key, planned);
    if (body !== undefined) return sendJsonText(reply, body, status);
  }
  const tx = await db.connect();
  let broken = false;
  try {
    await tx.query('BEGIN');
    if (key === undefined) {
      const body = JSON.stringify(await work(tx));
      await writeQueuedEvents(tx);
      await tx.query('COMMIT');
      return sendJsonText(reply, body, status);
    }
    const slot = keySlot(request, key);
    const claim = await claimKey(tx, slot, false);
    if (!claim.locked) {
      throw new IdempotencyKeyInUseError(
        'A request with this Idempotency-Key is still being processed; retry later.',
      );
    }
    const print = fingerprint(request);
    let stored = claim.stored;
    if (stored && !stored.expired) return replay(tx, reply, stored, print);
    if (stored) await deleteStored(tx, slot);

    let resultStatus = status;
    let body: string;
    try {
      body = JSON.stringify(await work(tx));
    } catch (error) {
      const apiError = toApiError(error);
      if (!isStored(apiError.status)) throw error;
      // The work's effects go with the whole transaction; its refusal is then kept in a new
      // one, under the key's lock again, so a retry gets the same answer. (No savepoint on
      // every write: this path is rare, the successful one is hot.)
      await tx.query('ROLLBACK');
      discardQueuedEvents(tx);
      await tx.query('BEGIN');
      stored = (await claimKey(tx, slot, true)).stored;
      if (stored && !stored.expired) return replay(tx, reply, stored, print);
      if (stored) await deleteStored(tx, slot);
      resultStatus = apiError.status;
      body = JSON.stringify(envelope(apiError, request.id));
    }
    // The stored result and the work's events in one statement (src/events/outbox.ts).
    const record = storedValues(slot, print, resultStatus, body);
    const events = takeQueuedEvents(tx);
    await tx.query(
      events.length === 0
        ? { name: 'idempotency_store', text: STORE_SQL, values: record }
        : {
            name: 'idempotency_store_with_events',
            text: STORE_WITH_EVENTS_SQL,
            values: [...eventColumns(events), ...record],
          },
    );
    await tx.query('COMMIT');
    return sendJsonText(reply, body, resultStatus);
  } catch (error) {
    try {
      await tx.query('ROLLBACK');
    } catch {
      broken = true;
    }
    throw error;
  } finally {
    discardQueuedEvents(tx);
    tx.release(broken);
  }
}

/**
 * Deletes records past their retention; run periodically. Returns how many went. The rows are
 * named by their key, not their ctid: a ctid is only unique within one table, and on a table
 * partitioned (or sharded) by tenant the same ctid names a row in every partition.
 */
export async function purgeExpiredIdempotencyKeys(db: Db): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys
      WHERE (tenant_id, environment, key) IN (
              SELECT tenant_id, environment, key FROM idempotency_keys
               WHERE created_at < now() - make_interval(hours => $1) LIMIT 10000)`,
    [RETENTION_HOURS],
  );
  return rowCount ?? 0;
}
