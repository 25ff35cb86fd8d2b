// Authentication and scopes, as one Fastify hook: a route declares
// `config: { scope: 'invoices:write' }` (or `scope: null` for any valid key, or `auth: false`
// for the unauthenticated operational routes) and never calls auth code itself. The same hook
// slows down addresses that fail authentication repeatedly and applies each key's rate limit
// (./rate-limit.ts), so the order is fixed: address, key, transport, rate limit, scope.
import type { FastifyInstance, FastifyRequest } from 'fastify';
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
} from './errors.ts';
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

/** Authenticates the key, then counts the request against its rate limit, then checks scope. */
export function registerAuth(
  app: FastifyInstance,
  verifier: KeyVerifier,
  config: Config,
  limits: RateLimits,
): void {
  app.decorateRequest('actor', null as unknown as Actor);
  app.addHook('onRequest', async (request, reply) => {
    const routeConfig = request.routeOptions.config;
    // Unknown routes (404/405) and operational routes need no key.
    if (request.routeOptions.url === undefined || routeConfig.auth === false) return;
    const header = request.headers.authorization;
    const match = header === undefined ? null : BEARER.exec(header);
    if (!match) {
      throw new ApiKeyMissingError(
        'No API key provided. Send it in the header "Authorization: Bearer <API_KEY>".',
      );
    }
    // An address that failed too often is refused before its key is even looked at.
    await limits.refuseIfBlocked(request.ip);
    let key: VerifiedKey;
    try {
      key = await verifier.verify(match[1]!);
    } catch (error) {
      if (error instanceof ApiKeyInvalidError || error instanceof ApiKeyRevokedError) {
        await limits.noteAuthFailure(request.ip);
      }
      throw error;
    }
    if (key.environment === 'live' && !isSecureEnough(request, config.trustProxy)) {
      throw new HttpsRequiredError('Live API keys must be sent over HTTPS.');
    }
    request.actor = {
      tenantId: key.tenantId,
      environment: key.environment,
      keyId: key.id,
      scopes: key.scopes,
    };
    // Every authenticated request counts, including those refused for scope below.
    await limits.admitKey(key.id, key.environment, reply);
    const required = routeConfig.scope;
    if (required && !key.scopes.includes(required)) throw new ScopeInsufficientError(required);
  });
}

/** For endpoints whose scope depends on the request (events): throws unless the actor holds it. */
export function requireScope(actor: Actor, scope: Scope): void {
  if (!actor.scopes.includes(scope)) throw new ScopeInsufficientError(scope);
}
