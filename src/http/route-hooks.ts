// Hooks added to single routes from an onRoute hook: only the routes that need one pay for it.

/** A route's hooks of one kind as a list (Fastify takes one function or a list). */
export function routeHooks<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}
