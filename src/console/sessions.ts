// Console sessions (docs/console.md, "Sessions"): made at sign-in with a new random token (a
// session id is never carried over from before sign-in: no fixation), kept in PostgreSQL as
// the token's SHA-256, ended at sign-out, when the user is removed, or after 12 hours without
// a request. Sign-in is throttled (./throttle.ts) and answers a wrong password, an unknown
// address and a user who has not accepted the invitation alike, after the same work.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { Actor, Environment } from '../tenancy.ts';
import { passwordMatches } from './passwords.ts';
import { scopesOf } from './roles.ts';
import {
  deleteSession,
  insertSession,
  setSessionEnvironment,
  touchSession,
} from './sessions-store.ts';
import type { SignInThrottle } from './throttle.ts';
import { newToken, splitTenantToken, tokenHash } from './tokens.ts';
import { userFromRow, type ConsoleUser } from './users.ts';
import { selectUserByEmail } from './users-store.ts';

export const IDLE_HOURS = 12;
const TENANT_ID = /^ten_[0-9A-Za-z]{1,64}$/;

export interface ConsoleSession {
  user: ConsoleUser;
  environment: Environment;
  /** Who acts in the services: the user, with the scopes of its role. */
  actor: Actor;
  /** The SHA-256 of the session's token: what the CSRF tokens are bound to. */
  tokenHash: Buffer;
}

export type SignInOutcome =
  { signedIn: true; cookie: string; user: ConsoleUser } | { signedIn: false; retryAfter: number };

export function createConsoleSessions(deps: { db: Db; clock: Clock; throttle: SignInThrottle }) {
  const { db, clock, throttle } = deps;

  return {
    /** Signs in, or says only that it did not (retryAfter > 0: throttled). */
    async signIn(input: {
      tenantId: string;
      email: string;
      password: string;
      address: string;
    }): Promise<SignInOutcome> {
      const tenantId = input.tenantId.trim();
      const email = input.email.trim().toLowerCase();
      // A mistyped tenant is counted too, under one name: its text is not a tenant's key.
      const counted = TENANT_ID.test(tenantId) ? tenantId : '';
      const account = { kind: 'account', value: email } as const;
      const subjects = [{ kind: 'address', value: input.address } as const, account];
      const retryAfter = await throttle.refusedFor(counted, subjects);
      if (retryAfter > 0) return { signedIn: false, retryAfter };
      const user = counted === '' ? null : await selectUserByEmail(db, tenantId, email);
      if (!(await passwordMatches(user?.password_hash ?? null, input.password)) || !user) {
        await throttle.failed(counted, subjects);
        return { signedIn: false, retryAfter: 0 };
      }
      await throttle.succeeded(tenantId, account);
      const token = newToken();
      await insertSession(
        db,
        { tenantId, tokenHash: tokenHash(token), userId: user.id, environment: 'live' },
        clock.now(),
      );
      return { signedIn: true, cookie: `${tenantId}.${token}`, user: userFromRow(user) };
    },

    /** The session of a cookie's value, marked seen now; null when it is unknown or ended. */
    async resolve(cookie: string | undefined): Promise<ConsoleSession | null> {
      const parts = cookie === undefined ? null : splitTenantToken(cookie);
      if (!parts) return null;
      const now = clock.now();
      const idleSince = new Date(now.getTime() - IDLE_HOURS * 3_600_000);
      const hash = tokenHash(parts.token);
      const row = await touchSession(db, parts.tenantId, hash, now, idleSince);
      if (!row) return null;
      const user = userFromRow(row.user);
      return {
        user,
        environment: row.environment,
        tokenHash: hash,
        actor: {
          tenantId: parts.tenantId,
          environment: row.environment,
          keyId: null,
          lineageId: null,
          scopes: scopesOf(user.role),
          user: { id: user.id, email: user.email },
        },
      };
    },

    async signOut(session: ConsoleSession): Promise<void> {
      await deleteSession(db, session.user.tenantId, session.tokenHash);
    },

    /** The console shows one environment at a time; the choice is the session's. */
    async switchEnvironment(session: ConsoleSession, environment: Environment): Promise<void> {
      await setSessionEnvironment(db, session.user.tenantId, session.tokenHash, environment);
    },
  };
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;
