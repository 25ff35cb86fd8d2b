// Authentication and scopes, as one Fastify hook: a route declares
// `config: { scope: 'invoices:write' }` (or `scope: null` for any valid key, or `auth: false`
// for the unauthenticated operational routes) and never calls auth code itself.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { KeyVerifier } from '../keys/verifier.ts';
import type { Scope } from '../keys/scopes.ts';
import type { Actor } from '../tenancy.ts';
import { ApiKeyMissingError, HttpsRequiredError, ScopeInsufficientError } from './errors.ts';

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
 * development, tests) when no trusted proxy says the client used http.
 */
function isSecureEnough(request: FastifyRequest, trustProxy: boolean): boolean {
  if ((request.socket as { encrypted?: boolean }).encrypted) return true;
  const forwarded = trustProxy ? request.headers['x-forwarded-proto'] : undefined;
  const proto =
    typeof forwarded === 'string' ? forwarded.split(',')[0]?.trim().toLowerCase() : undefined;
  if (proto === 'https') return true;
  return proto === undefined && isLoopback(request.socket.remoteAddress);
}

export function registerAuth(app: FastifyInstance, verifier: KeyVerifier, config: Config): void {
  app.decorateRequest('actor', null as unknown as Actor);
  app.addHook('onRequest', async (request) => {
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
    const key = await verifier.verify(match[1]!);
    if (key.environment === 'live' && !isSecureEnough(request, config.trustProxy)) {
      throw new HttpsRequiredError('Live API keys must be sent over HTTPS.');
    }
    request.actor = {
      tenantId: key.tenantId,
      environment: key.environment,
      keyId: key.id,
      scopes: key.scopes,
    };
    const required = routeConfig.scope;
    if (required && !key.scopes.includes(required)) throw new ScopeInsufficientError(required);
  });
}

/** For endpoints whose scope depends on the request (events): throws unless the actor holds it. */
export function requireScope(actor: Actor, scope: Scope): void {
  if (!actor.scopes.includes(scope)) throw new ScopeInsufficientError(scope);
}
