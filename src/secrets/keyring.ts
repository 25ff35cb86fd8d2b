// The server's secrets key: it seals the secrets the server must be able to read again
// (webhook signing secrets) and derives the cursor signing key. The database never holds it,
// so a copy of the database (a backup, a replica) yields no working secret.
//
// Where it comes from:
//   SECRETS_KEY            32 random bytes, base64 or hex (`openssl rand -base64 32`); every
//                          instance of one database must have the same.
//   otherwise              DATA_DIR/secrets.key, made on the first start (mode 0600): enough
//                          for one instance, the embedded database above all.
//   SECRETS_KEY_PREVIOUS   keys being rotated out (comma-separated): still opened, never used
//                          to seal. `billing secrets reseal` seals everything under the current
//                          key; the previous key can be dropped after it.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deriveKey, open, seal, sealedKeyId } from './sealed.ts';

const KEY_FILE = 'secrets.key';

export class SecretsKeyError extends Error {}

interface Key {
  id: string;
  key: Buffer;
}

function parseKey(text: string, name: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) {
    throw new SecretsKeyError(`${name} must be 32 bytes, written in base64 or hex.`);
  }
  return key;
}

function keyOf(key: Buffer): Key {
  return { id: createHash('sha256').update(key).digest('base64url').slice(0, 8), key };
}

export class SecretsKeyring {
  readonly #current: Key;
  readonly #all: Map<string, Key>;

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    this.#current = keyOf(current);
    this.#all = new Map([this.#current, ...previous.map(keyOf)].map((k) => [k.id, k]));
  }

  /** The key from SECRETS_KEY, else from DATA_DIR/secrets.key (made if absent). */
  static async load(config: {
    secretsKey: string | undefined;
    secretsKeyPrevious: string | undefined;
    dataDir: string;
  }): Promise<SecretsKeyring> {
    const previous = (config.secretsKeyPrevious ?? '')
      .split(',')
      .filter((k) => k.trim() !== '')
      .map((k) => parseKey(k, 'SECRETS_KEY_PREVIOUS'));
    if (config.secretsKey)
      return new SecretsKeyring(parseKey(config.secretsKey, 'SECRETS_KEY'), previous);
    const file = path.join(config.dataDir, KEY_FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
      await mkdir(config.dataDir, { recursive: true });
      text = randomBytes(32).toString('base64');
      // `wx`: two processes starting at once do not overwrite each other's key.
      await writeFile(file, `${text}\n`, { mode: 0o600, flag: 'wx' }).catch(async (e) => {
        if ((e as { code?: string }).code !== 'EEXIST') throw e;
        text = await readFile(file, 'utf8');
      });
    }
    return new SecretsKeyring(parseKey(text, file), previous);
  }

  seal(plain: string, context: string): string {
    return seal(plain, this.#current.key, this.#current.id, context);
  }

  /** Opens a value sealed under any key of the ring; throws when none fits. */
  open(sealed: string, context: string): string {
    const key = this.#all.get(sealedKeyId(sealed) ?? '');
    if (!key) throw new SecretsKeyError('sealed under a key this server does not have');
    return open(sealed, key.key, context);
  }

  /** True while previous keys are held (SECRETS_KEY_PREVIOUS): a rotation is under way. */
  get rotating(): boolean {
    return this.#all.size > 1;
  }

  /** True when the value is sealed under the current key (nothing to reseal). */
  isCurrent(sealed: string): boolean {
    return sealedKeyId(sealed) === this.#current.id;
  }

  /** A key for one purpose, derived from the current key (e.g. cursor signing). */
  derive(purpose: string): Buffer {
    return deriveKey(this.#current.key, purpose);
  }
}
