// A module's service bound to the database: its functions, which take the database first, made
// callable without it. The composition root (src/composition.ts) binds each module once, so
// routes, the worker and the CLI call `customers.create(write, body)` and hold no pool.
import type { Db } from './pool.ts';

type WithoutDb<F> = F extends (db: Db, ...rest: infer A) => infer R ? (...rest: A) => R : never;

export type BoundToDb<T> = { [K in keyof T]: WithoutDb<T[K]> };

export function bindDb<T extends Record<string, (db: Db, ...rest: never[]) => unknown>>(
  db: Db,
  functions: T,
): BoundToDb<T> {
  const bound: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(functions)) {
    bound[name] = (...rest: never[]) => fn(db, ...rest);
  }
  return bound as BoundToDb<T>;
}
