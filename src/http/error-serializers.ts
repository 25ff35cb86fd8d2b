// Error answers serialized by one function per distinct schema. When the server starts,
// Fastify compiles a serializer (fast-json-stringify, through
// @fastify/fast-json-stringify-compiler) for each response of each route, from the schema
// alone: the method, URL and status it is given as well play no part. Every route answers its
// errors with the same envelope, so of the 1,325 serializers the server asked for, 1,199 were
// for error statuses, of 16 distinct schemas. The serializer of an error status is kept here
// by its schema's JSON text and shared. Those of successful answers, which run on every
// request, stay one per route, and so do the request validators: compiling every distinct
// schema once (1,713 functions of 186 schemas) saved more at start, but measured 0.85–0.95 of
// the mixed load's throughput in three side-by-side runs (bench/README.md).
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

// The compiler as it runs: a factory of (external schemas, options) returns a compiler of one
// route's response schema. (Its declared types describe a compiler of the schema alone.)
type Compile = (route: { schema: unknown; httpStatus?: string }) => unknown;
type Factory = (...args: never[]) => Compile;

const isError = (status: string | undefined) => status === 'default' || Number(status) >= 400;

function errorsOnce(factory: Factory): Factory {
  return (...args) => {
    const compile = factory(...args);
    const built = new Map<string, unknown>();
    return (route) => {
      if (!isError(route.httpStatus)) return compile(route);
      const key = JSON.stringify(route.schema);
      if (!built.has(key)) built.set(key, compile(route));
      return built.get(key);
    };
  };
}

/** Fastify's default serializer compiler (its `schemaController` option), errors compiled once. */
export const compilersFactory = {
  buildSerializer: errorsOnce(SerializerSelector() as unknown as Factory),
} as unknown as NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
