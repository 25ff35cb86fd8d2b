// Answers for requests no route takes: 405 method_not_allowed with an Allow header when the
// path exists for other methods, else 404 route_not_found. Fastify's own router is asked which
// methods the path has, so the answer always agrees with the routes that are registered.
import type { FastifyInstance } from 'fastify';
import { MethodNotAllowedError, RouteNotFoundError } from '../errors.ts';
import { sendError } from './error-handler.ts';
import { hasEmptyParam } from './path-params.ts';

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const;

export function registerNotFound(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    // A path whose parameter would be empty exists for no method (./path-params.ts).
    const allowed = METHODS.filter((method) => {
      const match = app.findRoute({ method, url: path });
      return match !== null && !hasEmptyParam(match.params);
    });
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        request,
        reply,
        new MethodNotAllowedError(
          `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
        ),
      );
    }
    return sendError(request, reply, new RouteNotFoundError(`No route ${request.method} ${path}.`));
  });
}
