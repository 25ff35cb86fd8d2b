// A path parameter is never empty: `/v1/customers/` is no customer with the id '', and
// `/v1/invoices//pdf` no invoice's PDF. The router would match them (a parameter may be
// empty there), so each route with parameters refuses them first, as route_not_found before
// any key is asked for, like every other path that does not exist.
import type { onRequestHookHandler } from 'fastify';
import { RouteNotFoundError } from '../errors.ts';

/** True when one of a matched route's parameters is the empty string. */
export function hasEmptyParam(params: Record<string, string | undefined>): boolean {
  for (const name in params) if (params[name] === '') return true;
  return false;
}

export const refuseEmptyParams: onRequestHookHandler = (request, _reply, done) => {
  if (!hasEmptyParam(request.params as Record<string, string>)) return done();
  const path = request.url.split('?')[0] ?? '/';
  done(new RouteNotFoundError(`No route ${request.method} ${path}.`));
};
