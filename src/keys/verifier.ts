// Verifies presented secrets. Authentication must not hit the database on every request, so
// verified keys are kept in memory for at most `cacheMs` (1 s by default); a revocation also
// reaches every instance at once through PostgreSQL LISTEN/NOTIFY, and the expiry is the
// safety net when a notification is missed. Either way a revoked key is refused within 2 s.
import { systemClock, type Clock } from '../clock.ts';
import type pg from 'pg';
import type { Db } from '../db/pool.ts';
import { ApiKeyInvalidError, ApiKeyRevokedError } from '../errors.ts';
import type { Environment } from '../tenancy.ts';
import type { Scope } from './scopes.ts';
import { parseSecret, secretDigest } from './secret.ts';
import {
  listenForKeyChanges,
  selectKeyBySecretHash,
  stopListening,
  touchKeysLastUsed,
} from './store.ts';

export interface VerifiedKey {
  id: string;
  lineageId: string;
  tenantId: string;
  environment: Environment;
  scopes: Scope[];
  expiresAt: number | null;
  revoked: boolean;
}

interface CacheEntry {
  key: VerifiedKey | null;
  fetchedAt: number;
}

// Entries live for a second at most; the cap only bounds memory when many distinct secrets
// (mostly unknown ones, which failed-authentication slow-down throttles per address) arrive.
const MAX_CACHE_ENTRIES = 50_000;
const LAST_USED_FLUSH_MS = 10_000;

function isActive(key: VerifiedKey, now: number): boolean {
  return !key.revoked && (key.expiresAt === null || key.expiresAt > now);
}

export class KeyVerifier {
  private readonly cache = new Map<string, CacheEntry>();
  /**
   * Look-ups under way, by digest: the requests that find a key's entry expired at the same
   * moment (every connection of a busy client, once a second) share one query.
   */
  private readonly pending = new Map<string, Promise<CacheEntry>>();
  /** keyId → the minute it was last seen, waiting to be written (off the hot path). */
  private readonly lastUsed = new Map<string, { tenantId: string; minute: number }>();
  private readonly written = new Map<string, number>();
  private flushTimer: NodeJS.Timeout | undefined;
  private listener: pg.PoolClient | undefined;
  private closed = false;
  /** Database look-ups made, for tests that count them. */
  lookups = 0;

  private readonly db: Db;
  private readonly cacheMs: number;
  /** Where the LISTEN connection comes from: not a transaction pooler, which would lend it on. */
  private readonly listenDb: Db;

  private readonly clock: Clock;

  constructor(db: Db, cacheMs: number, listenDb: Db = db, clock: Clock = systemClock) {
    this.db = db;
    this.clock = clock;
    this.cacheMs = cacheMs;
    this.listenDb = listenDb;
  }

  async start(): Promise<void> {
    this.flushTimer = setInterval(() => void this.flushLastUsed(), LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
    await this.listen();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    let client: pg.PoolClient | undefined;
    try {
      client = await this.listenDb.connect();
      // close() ran while the connection was being made: it found nothing to hand back.
      if (this.closed) {
        client.release();
        return;
      }
      const own = client;
      this.listener = own;
      own.on('notification', (message) => {
        if (message.channel === 'api_key_changed' && message.payload)
          this.evictKey(message.payload);
      });
      own.on('error', () => {
        // Once close() has handed the connection back (the database may be stopping and end
        // it), it is the pool's: releasing it again would throw.
        if (this.listener !== own) return;
        this.listener = undefined;
        own.release(true);
        this.cache.clear();
        if (!this.closed) setTimeout(() => void this.listen(), 1000).unref();
      });
      await listenForKeyChanges(own);
    } catch {
      // The cache expiry still bounds staleness; try again shortly. A connection that failed
      // its LISTEN is discarded here, unless its error handler or close() has dealt with it.
      if (client !== undefined && this.listener !== client) return;
      this.listener = undefined;
      client?.release(true);
      if (!this.closed) setTimeout(() => void this.listen(), 1000).unref();
    }
  }

  private evictKey(keyId: string): void {
    for (const [hash, entry] of this.cache) {
      if (entry.key?.id === keyId) this.cache.delete(hash);
    }
  }

  /** The cache's entry for a digest, if it is younger than `cacheMs`. */
  private freshEntry(digest: string, now: number): CacheEntry | undefined {
    const entry = this.cache.get(digest);
    return entry !== undefined && now - entry.fetchedAt < this.cacheMs ? entry : undefined;
  }

  /**
   * The key a secret stands for when memory alone can answer: a fresh cache entry of a key
   * neither revoked nor expired. Anything else (unknown, stale, revoked) is undefined, and
   * verify() gives the answer. Synchronous: the common request needs no promise.
   */
  verifyCached(secret: string): VerifiedKey | undefined {
    const now = this.clock.nowMs();
    const entry = this.freshEntry(secretDigest(secret), now);
    const key = entry?.key;
    if (!key || !isActive(key, now)) return undefined;
    this.noteUse(key, now);
    return key;
  }

  /** The key a secret stands for; throws api_key_invalid / api_key_revoked. */
  async verify(secret: string): Promise<VerifiedKey> {
    const now = this.clock.nowMs();
    // Everything works on the SHA-256 of the secret, never on the secret: the map's hashing and
    // string comparisons, like the index look-up, can then reveal nothing of the secret's
    // content through their timing. Unknown keys are cached exactly like known and revoked
    // ones, so a repeated unknown key is not answered slower than a revoked one (which would
    // tell a guesser which keys exist).
    const cacheKey = secretDigest(secret);
    let entry = this.freshEntry(cacheKey, now);
    if (!entry) {
      // Format and checksum before the database: a mistyped key costs no look-up. (Every
      // cached entry passed this check when it was made, so a hit needs no second one.)
      if (parseSecret(secret) === null) throw new ApiKeyInvalidError('The API key is not valid.');
      let lookUp = this.pending.get(cacheKey);
      if (lookUp === undefined) {
        // Cached once, for every request that joins it, and dated by when the look-up began:
        // no answer is older than it says.
        lookUp = this.lookUp(Buffer.from(cacheKey, 'base64'))
          .then((key) => {
            const fetched = { key, fetchedAt: now };
            if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.clear();
            this.cache.set(cacheKey, fetched);
            return fetched;
          })
          .finally(() => this.pending.delete(cacheKey));
        this.pending.set(cacheKey, lookUp);
      }
      entry = await lookUp;
    }
    const key = entry.key;
    if (!key) throw new ApiKeyInvalidError('The API key is not valid.');
    if (!isActive(key, now)) {
      throw new ApiKeyRevokedError('This API key has been revoked or has expired.');
    }
    this.noteUse(key, now);
    return key;
  }

  private async lookUp(secretHash: Buffer): Promise<VerifiedKey | null> {
    this.lookups++;
    const row = await selectKeyBySecretHash(this.db, secretHash);
    if (!row) return null;
    return {
      id: row.id,
      lineageId: row.lineage_id,
      tenantId: row.tenant_id,
      environment: row.environment,
      scopes: row.scopes,
      expiresAt: row.expires_at?.getTime() ?? null,
      revoked: row.revoked_at !== null,
    };
  }

  private noteUse(key: VerifiedKey, now: number): void {
    const minute = now - (now % 60_000);
    if (this.written.get(key.id) === minute) return;
    this.lastUsed.set(key.id, { tenantId: key.tenantId, minute });
  }

  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const uses = [...this.lastUsed].map(([id, use]) => ({
      id,
      tenantId: use.tenantId,
      minute: new Date(use.minute),
    }));
    this.lastUsed.clear();
    try {
      await touchKeysLastUsed(this.db, uses);
      for (const use of uses) this.written.set(use.id, use.minute.getTime());
      if (this.written.size > MAX_CACHE_ENTRIES) this.written.clear();
    } catch {
      // lastUsedAt is advisory; a failed write is retried on the next use.
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.flushTimer) clearInterval(this.flushTimer);
    await this.flushLastUsed();
    if (this.listener) {
      const listener = this.listener;
      this.listener = undefined;
      const failed = await stopListening(listener).then(
        () => false,
        () => true,
      );
      listener.release(failed);
    }
  }
}
