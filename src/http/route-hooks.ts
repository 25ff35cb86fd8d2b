// The rules every route of the API and of the public pages applies to its input, as hooks
// given to each route from its own schema when it is registered: only the routes that need a
// hook pay for it. One plugin, registered at the start of each scope whose routes follow the
// rules (src/app.ts), applies them all in the order written here, whatever else the scope
// registers: the /docs page has a scope of its own and none of them.
import type { FastifyInstance, preValidationHookHandler, RouteOptions } from 'fastify';
import { refuseEmptyParams } from './path-params.ts';
import { queryReader } from './query.ts';
import { NoQuery } from './schemas.ts';
import { refuseUnstorableText, takesInput } from './storable-text.ts';

/** A route's hooks of one kind as a list (Fastify takes one function or a list). */
export function routeHooks<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

// A write without a body is the same as one with `{}`: actions such as /issue need none, and
// a required field missing is then named (parameter_missing) rather than "no body".
const emptyBodyIsObject: preValidationHookHandler = (request, _reply, done) => {
  if (request.body === undefined) request.body = {};
  done();
};

function takesBody(route: RouteOptions): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return !methods.every((method) => method === 'GET' || method === 'HEAD');
}

/** Gives each route registered in `scope` from here on the hooks its schema calls for. */
export function registerInputRules(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    // Unknown parameters are refused, in the query string as in bodies.
    if (!route.schema?.querystring) route.schema = { ...route.schema, querystring: NoQuery };
    // First of all, before any key is asked for (./path-params.ts).
    if (route.url.includes(':')) {
      route.onRequest = [refuseEmptyParams, ...routeHooks(route.onRequest)];
    }
    const readQuery = queryReader(route.schema.querystring);
    if (readQuery) route.preValidation = [readQuery, ...routeHooks(route.preValidation)];
    if (takesBody(route)) {
      route.preValidation = [...routeHooks(route.preValidation), emptyBodyIsObject];
    }
    if (takesInput(route.schema)) {
      route.preHandler = [...routeHooks(route.preHandler), refuseUnstorableText];
    }
  });
}
