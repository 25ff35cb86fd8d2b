// Fields a resource fixes when it is created: a PATCH that names one is refused by name, with
// why, rather than as an unknown parameter (400 parameter_invalid, `param` the field).
import type { TObject } from '@sinclair/typebox';
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { ParameterInvalidError } from '../errors.ts';
import { routeHooks } from './route-hooks.ts';

/**
 * Gives the PATCH route at `url` of `scope` a check that its body names none of the fields
 * `create` has and `update` lacks; `why` says what to do instead.
 */
export function refuseFixedFields(
  scope: FastifyInstance,
  url: string,
  schemas: { create: TObject; update: TObject },
  why: string,
): void {
  const fixed = new Set(Object.keys(schemas.create.properties));
  for (const field of Object.keys(schemas.update.properties)) fixed.delete(field);
  const refuse: preValidationHookHandler = (request, _reply, done) => {
    const body = request.body;
    const named = Object.keys(typeof body === 'object' && body !== null ? body : {}).find((f) =>
      fixed.has(f),
    );
    done(
      named === undefined
        ? undefined
        : new ParameterInvalidError(named, `${named} cannot change. ${why}`),
    );
  };
  scope.addHook('onRoute', (route) => {
    if (route.method === 'PATCH' && route.url === url) {
      route.preValidation = [refuse, ...routeHooks(route.preValidation)];
    }
  });
}
