// Console passwords: Argon2id (RFC 9106) through @node-rs/argon2, with OWASP's recommended
// parameters (19 MiB of memory, 2 passes, 1 lane). The hash is a PHC string that names its
// own parameters, so raising them later keeps older hashes verifiable.
import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id: the package's const enum, written out (type stripping keeps no enums).
const ARGON2ID = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The shortest password accepted; NIST SP 800-63B asks for at least 8, we ask for 12. */
export const MIN_PASSWORD_LENGTH = 12;
/** Longer passwords are refused: hashing megabytes is work an attacker could ask for. */
export const MAX_PASSWORD_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// A hash of nothing anyone knows: an unknown e-mail is checked against it, so that signing in
// with one takes as long as with a known address (no answer tells which exist).
let dummy: Promise<string> | undefined;

/** True when `password` matches `hashed`; with `hashed` null, false after the same work. */
export async function passwordMatches(hashed: string | null, password: string): Promise<boolean> {
  if (hashed === null) {
    dummy ??= hashPassword(`unknown ${Math.random()}`);
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  return verify(hashed, password).catch(() => false);
}
