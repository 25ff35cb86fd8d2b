// Authentication and scopes, as one Fastify hook: a route declares
// `config: { scope: 'invoices:write' }` (or `scope: null` for any valid key) and never calls
// auth code itself; the plugin is registered in the authenticated scope only (src/app.ts), and
// the routes that need no key (`auth: false`) live in the public one. The same hook
// slows down addresses that fail authentication repeatedly and applies each key's rate limit
// (./rate-limit.ts), so the order is fixed: address, key, transport, rate limit, scope.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { routeHooks } from './route-hooks.ts';
import type { Config } from '../config.ts';
import type { KeyVerifier, VerifiedKey } from '../keys/verifier.ts';
import type { Scope } from '../keys/scopes.ts';
import type { Actor } from '../tenancy.ts';
import {
  ApiKeyInvalidError,
  ApiKeyMissingError,
  ApiKeyRevokedError,
  HttpsRequiredError,
  ScopeInsufficientError,
} from '../errors.ts';
import type { RateLimits } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: no API key needed (health, metrics, documents). */
    auth?: boolean;
    /** The one scope the endpoint needs; null: any valid key. */
    scope?: Scope | null;
  }
  interface FastifyRequest {
    actor: Actor;
    /** The route's path pattern, set by its authentication hook (cheaper than routeOptions). */
    routeUrl: string | undefined;
  }
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

function isLoopback(address: string | undefined): boolean {
  return (
    address !== undefined &&
    (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'))
  );
}

/**
 * A live key must travel over TLS. Plain HTTP is tolerated only from a loopback peer (local
 * development, tests) when no trusted proxy says the client used http. The proxy's word is the
 * last X-Forwarded-Proto entry: a proxy that appends leaves the client's own claim before it.
 */
function isSecureEnough(request: FastifyRequest, trustProxy: boolean): boolean {
  if ((request.socket as { encrypted?: boolean }).encrypted) return true;
  const forwarded = trustProxy ? request.headers['x-forwarded-proto'] : undefined;
  const proto =
    typeof forwarded === 'string' ? forwarded.split(',').at(-1)?.trim().toLowerCase() : undefined;
  if (proto === 'https') return true;
  return proto === undefined && isLoopback(request.socket.remoteAddress);
}

function checkScope(key: VerifiedKey, required: Scope | null | undefined): void {
  if (required && !key.scopes.includes(required)) throw new ScopeInsufficientError(required);
}

/** The secret of an `Authorization: Bearer` header; throws api_key_missing without one. */
export function presentedSecret(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = header === undefined ? null : BEARER.exec(header);
  if (!match) {
    throw new ApiKeyMissingError(
      'No API key provided. Send it in the header "Authorization: Bearer <API_KEY>".',
    );
  }
  return match[1]!;
}

/**
 * Authenticates the key, then counts the request against its rate limit, then checks scope:
 * for every route registered in `app` (the authenticated scope) after this call.
 */
export function registerAuth(
  app: FastifyInstance,
  verifier: KeyVerifier,
  config: Config,
  limits: RateLimits,
): void {
  /** Transport, actor, rate limit, scope: what follows once the key is known. */
  function admit(
    request: FastifyRequest,
    reply: FastifyReply,
    key: VerifiedKey,
    required: Scope | null | undefined,
  ) {
    if (key.environment === 'live' && !isSecureEnough(request, config.trustProxy)) {
      throw new HttpsRequiredError('Live API keys must be sent over HTTPS.');
    }
    request.actor = {
      tenantId: key.tenantId,
      environment: key.environment,
      keyId: key.id,
      lineageId: key.lineageId,
      scopes: key.scopes,
    };
    // Every authenticated request counts, including those refused for scope below.
    const counted = limits.admitKey(key.id, key.environment, reply);
    if (counted) return counted.then(() => checkScope(key, required));
    checkScope(key, required);
  }

  async function authenticate(
    request: FastifyRequest,
    reply: FastifyReply,
    secret: string,
    required: Scope | null | undefined,
  ) {
    // An address that failed too often is refused before its key is even looked at.
    await limits.refuseIfBlocked(request.ip);
    let key: VerifiedKey;
    try {
      key = await verifier.verify(secret);
    } catch (error) {
      // Beyond the limit, the failure is answered 429 instead (see ./rate-limit.ts).
      if (error instanceof ApiKeyInvalidError || error instanceof ApiKeyRevokedError) {
        await limits.countAuthFailure(request.ip);
      }
      throw error;
    }
    await admit(request, reply, key, required);
  }

  /** The hook of a route that needs a key (with `required`, that scope too). */
  function authHook(required: Scope | null | undefined, url: string): onRequestHookHandler {
    // A callback hook rather than an async one: the common request (a key verified less than
    // a second ago, counted in this instance's memory) is answered without a promise.
    return (request, reply, done) => {
      request.routeUrl = url;
      try {
        const secret = presentedSecret(request);
        if (limits.synchronous) {
          limits.refuseIfBlocked(request.ip);
          const key = verifier.verifyCached(secret);
          if (key !== undefined) {
            admit(request, reply, key, required);
            return done();
          }
        }
        authenticate(request, reply, secret, required).then(() => done(), done);
      } catch (error) {
        done(error as Error);
      }
    };
  }

  app.decorateRequest('actor', null as unknown as Actor);
  app.decorateRequest('routeUrl', undefined);
  // Each route of the scope gets its own hook, which knows its scope: no lookup of the route's
  // options per request. Unknown routes (404/405) need no key and get none; routes that need
  // none (`auth: false`: operations, the hosted page) are in the public scope (src/app.ts),
  // and one declared here is a mistake in the code.
  app.addHook('onRoute', (route) => {
    if (route.config?.auth === false) {
      throw new Error(`${route.url} says auth: false but is in the authenticated scope`);
    }
    route.onRequest = [...routeHooks(route.onRequest), authHook(route.config?.scope, route.url)];
  });
}
