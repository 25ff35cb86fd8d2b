// Query parameters arrive as text, and the API does not coerce types: Ajv's coercion would read
// "1e2" as 100, "1.5" as 1.5 and " 7" as 7. A route whose query schema declares an integer or a
// boolean parameter gets one step before validation that reads that parameter from its
// canonical text only ("25", not "025" or "+25"; "true" or "false"); anything else stays text and
// the schema refuses it as the wrong type (400 parameter_invalid), like a repeated parameter
// (an array). The document can then say `integer` and `boolean`, and clients send numbers.
import type { preValidationHookHandler } from 'fastify';

const CANONICAL_INTEGER = /^(0|-?[1-9][0-9]*)$/;

type Reader = (text: string) => unknown;
const readers: Record<string, Reader> = {
  integer: (text) => (CANONICAL_INTEGER.test(text) ? Number(text) : text),
  boolean: (text) => (text === 'true' ? true : text === 'false' ? false : text),
};

/** The parameters of a query schema that are read from text, with their reader. */
function typedParameters(schema: unknown): [string, Reader][] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)
    ?.properties;
  const typed: [string, Reader][] = [];
  for (const [name, property] of Object.entries(properties ?? {})) {
    const reader = typeof property.type === 'string' ? readers[property.type] : undefined;
    if (reader) typed.push([name, reader]);
  }
  return typed;
}

/** The step that reads a query schema's integer and boolean parameters, if it has any. */
export function queryReader(schema: unknown): preValidationHookHandler | undefined {
  const typed = typedParameters(schema);
  if (typed.length === 0) return undefined;
  return (request, _reply, done) => {
    const query = request.query as Record<string, unknown>;
    for (const [name, reader] of typed) {
      const value = query[name];
      if (typeof value === 'string') query[name] = reader(value);
    }
    done();
  };
}
