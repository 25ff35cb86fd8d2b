// PostgreSQL cannot store every JavaScript string: `text` refuses NUL (U+0000), and a lone
// UTF-16 surrogate has no UTF-8 form (jsonb refuses its `\ud800` escape). Such a string would
// fail deep inside a query as a 500, so every string of the path, the query and the body (keys
// included) is checked once, after schema validation, and refused as 400 parameter_invalid
// naming the field.
import type { preHandlerHookHandler } from 'fastify';
import { ParameterInvalidError } from '../errors.ts';

function isStorable(text: string): boolean {
  return !text.includes('\u0000') && (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** A value met on the way down, with how it was reached (its path is made only if needed). */
interface Visit {
  node: unknown;
  parent: Visit | undefined;
  segment: string;
}

function pathOf(visit: Visit): string {
  const segments: string[] = [];
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) {
    segments.push(at.segment);
  }
  return segments.reverse().join('.');
}

/**
 * The dotted path of the first string (or key) PostgreSQL cannot store, if any. Paths are
 * made only for a refusal: made for every value, they cost more than the checks themselves.
 */
export function unstorableTextAt(value: unknown): string | undefined {
  // Iterative: a body may nest deeply.
  const pending: Visit[] = [{ node: value, parent: undefined, segment: '' }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const { node } = visit;
    if (typeof node === 'string') {
      if (!isStorable(node)) return pathOf(visit);
    } else if (Array.isArray(node)) {
      node.forEach((item, i) => pending.push({ node: item, parent: visit, segment: String(i) }));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        if (!isStorable(key)) return pathOf(visit);
        pending.push({ node: item, parent: visit, segment: key });
      }
    }
  }
  return undefined;
}

export const refuseUnstorableText: preHandlerHookHandler = (request, _reply, done) => {
  const param =
    unstorableTextAt(request.params) ??
    unstorableTextAt(request.query) ??
    unstorableTextAt(request.body);
  if (param === undefined) return done();
  done(
    new ParameterInvalidError(
      param || 'body',
      `${param || 'The body'} contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored.`,
    ),
  );
};

/**
 * Whether a route takes input to guard (path parameters, a query string with parameters, or a
 * body); a route that takes none (whoami) has nothing to check and is spared the hook.
 */
export function takesInput(schema: unknown): boolean {
  const parts = schema as
    { params?: unknown; body?: unknown; querystring?: { properties?: object } } | undefined;
  const query = parts?.querystring?.properties;
  return (
    parts?.params !== undefined ||
    parts?.body !== undefined ||
    (query !== undefined && Object.keys(query).length > 0)
  );
}
