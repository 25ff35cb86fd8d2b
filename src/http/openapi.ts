// Corrections to the OpenAPI document that @fastify/swagger generates from the route schemas.

interface Operation {
  requestBody?: {
    required?: boolean;
    content?: Record<string, { schema?: { required?: unknown[]; $ref?: string } }>;
  };
}
interface Document {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, { required?: unknown[] }> };
}

/**
 * @fastify/swagger marks every request body required, but a write sent without a body is read
 * as `{}` (app.ts): the body is required only where its schema requires a field. Without this
 * a client generated from the document would have to send `{}` to DELETE or to /issue.
 */
export function markOptionalBodies<T>(document: T): T {
  const { paths = {}, components = {} } = document as Document;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const body = operation.requestBody;
      const schema = body?.content?.['application/json']?.schema;
      if (!body || !schema) continue;
      const named = schema.$ref?.split('/').at(-1);
      const required = (named ? components.schemas?.[named] : schema)?.required ?? [];
      body.required = required.length > 0;
    }
  }
  return document;
}
