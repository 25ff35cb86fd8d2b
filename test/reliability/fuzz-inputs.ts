// Inputs for the fuzzer, derived from the OpenAPI document the server generates from its
// route schemas: the operations, a valid value for any schema, the places in a body a value
// can go, and the bad values, bodies, content types, headers, paths and query strings to try.
// Nothing here knows a particular route, so new routes are fuzzed as soon as they exist.
import fc from 'fast-check';

export type Schema = Record<string, any>;

export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. `/v1/invoices/{id}/lines/{lineId}`. */
  template: string;
  pathParams: string[];
  query: Record<string, Schema>;
  body: Schema | undefined;
  /** The statuses the document lists for it. */
  responses: Set<number>;
}

const METHOD_ORDER = ['get', 'post', 'patch', 'put', 'delete'];

/** The document with every `$ref` replaced by what it names (its schemas are not recursive). */
function dereference(document: any): any {
  const resolve = (node: any): any => {
    if (Array.isArray(node)) return node.map(resolve);
    if (node === null || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string') {
      const target = node.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((at: any, part: string) => at?.[part.replace(/~1/g, '/')], document);
      const { $ref: _ref, ...siblings } = node;
      return resolve({ ...target, ...siblings });
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolve(value)]));
  };
  return resolve(document);
}

/** Every operation of the document, reads first and deletions last (they remove fixtures). */
export function operationsOf(published: any): Operation[] {
  const document = dereference(published);
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries<Record<string, any>>(document.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(methods)) {
      if (!METHOD_ORDER.includes(method)) continue;
      const parameters: any[] = op.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        template,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: Object.fromEntries(
          parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema ?? {}]),
        ),
        body: op.requestBody?.content?.['application/json']?.schema,
        responses: new Set(Object.keys(op.responses ?? {}).map(Number)),
      });
    }
  }
  const rank = (o: Operation) => METHOD_ORDER.indexOf(o.method.toLowerCase());
  return operations.sort((a, b) => rank(a) - rank(b) || a.template.localeCompare(b.template));
}

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null') ?? 'null';
  if (typeof type === 'string') return type;
  if (schema.properties) return 'object';
  return undefined;
}

/** Resolves the first alternative of anyOf/oneOf/allOf, which is enough to build a value. */
function concrete(schema: Schema): Schema {
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    const first = schema[k]?.find((s: Schema) => typeOf(s) !== 'null') ?? schema[k]?.[0];
    if (first) return { ...first, ...concrete(first) };
  }
  return schema;
}

// Values a field name usually wants; everything else comes from the schema alone.
const NAMED_VALUES: Record<string, unknown> = {
  currency: 'eur',
  country: 'DE',
  email: 'fuzz@example.com',
  url: 'https://93.184.215.14/webhooks',
  displayName: 'VAT',
  dueDate: '2031-01-31',
};

export interface ValueContext {
  /** A real id for a field such as `customerId`, when one exists. */
  idFor(field: string): string | undefined;
}

/** A value the schema accepts (required properties only), with real ids where known. */
export function validValue(schema: Schema, name: string, ctx: ValueContext): unknown {
  const s = concrete(schema);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const type = typeOf(s);
  // An object's example names ids that do not exist here; its fields are built one by one.
  if (type !== 'object' && Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (name in NAMED_VALUES && (type === 'string' || type === undefined)) return NAMED_VALUES[name];
  if (/Id$/.test(name) && type === 'string') return ctx.idFor(name) ?? 'fuzz_missing_id';
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? [])
        out[key] = validValue(s.properties?.[key] ?? {}, key, ctx);
      return out;
    }
    case 'array':
      return s.minItems ? [validValue(s.items ?? {}, name, ctx)] : [];
    case 'integer':
    case 'number':
      return Math.min(Math.max(1, s.minimum ?? 1), s.maximum ?? 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
      if (s.format === 'email') return 'fuzz@example.com';
      if (s.format === 'date-time') return '2031-01-31T00:00:00.000Z';
      if (s.pattern)
        return fc.sample(fc.stringMatching(new RegExp(s.pattern)), { numRuns: 1, seed: 7 })[0];
      return 'f'.repeat(Math.max(s.minLength ?? 1, Math.min(4, s.maxLength ?? 4)));
    default:
      return 'fuzz';
  }
}

/** A place in a body: a path of keys and indexes, and the schema of what goes there. */
export interface Slot {
  path: (string | number)[];
  schema: Schema;
}

/** Every property (and array item, and metadata entry) down to `depth`, breadth first. */
export function slotsOf(schema: Schema, depth = 3, prefix: (string | number)[] = []): Slot[] {
  const s = concrete(schema);
  const slots: Slot[] = [];
  if (depth === 0) return slots;
  const type = typeOf(s);
  if (type === 'object') {
    for (const [key, child] of Object.entries<Schema>(s.properties ?? {})) {
      slots.push({ path: [...prefix, key], schema: child });
      slots.push(...slotsOf(child, depth - 1, [...prefix, key]));
    }
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      slots.push({ path: [...prefix, 'fuzzKey'], schema: s.additionalProperties });
    }
  } else if (type === 'array' && s.items) {
    slots.push({ path: [...prefix, 0], schema: s.items });
    slots.push(...slotsOf(s.items, depth - 1, [...prefix, 0]));
  }
  return slots;
}

/** A copy of `base` with `value` at `path`, making valid containers on the way. */
export function withValueAt(
  base: unknown,
  root: Schema,
  path: (string | number)[],
  value: unknown,
  ctx: ValueContext,
): unknown {
  const copy = structuredClone(base) as any;
  let node = copy;
  let schema = concrete(root);
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const childSchema =
      typeof key === 'number'
        ? concrete(schema.items ?? {})
        : concrete(schema.properties?.[key] ?? schema.additionalProperties ?? {});
    if (node[key] === undefined || node[key] === null) {
      node[key] = validValue(childSchema, String(key), ctx);
      if (typeOf(childSchema) === 'array' && node[key].length === 0) {
        node[key].push(validValue(childSchema.items ?? {}, String(key), ctx));
      }
    }
    node = node[key];
    schema = childSchema;
  }
  node[path[path.length - 1]!] = value;
  return copy;
}

/** A JSON number too large for JSON.stringify to write as it is: spliced in as raw text. */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** JSON text with RawJson values written as their raw text. */
export function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `\u0000raw${raws.length - 1}\u0000`;
    }
    return v;
  });
  return text.replace(/"\\u0000raw(\d+)\\u0000"/g, (_m, i) => raws[Number(i)]!);
}

const LONG = 'x'.repeat(100_000);
const WEIRD_STRINGS = [
  '',
  ' ',
  'Zoë Ünïcødé 🎉 𝕏 中文 \u202eevil\u202c e\u0301',
  'control \u0000\u0007\u001b[31m\r\n\t',
  new RawJson('"\\ud800 lone surrogate"'),
  "'; DROP TABLE customers; --",
  '%s%n{{7*7}}${7*7}<script>',
  '\ufeffBOM',
  LONG,
];
const BAD_NUMBERS = [
  -1,
  1.5,
  2 ** 31,
  2 ** 53,
  -(2 ** 53),
  1e21,
  new RawJson('9007199254740993'),
  new RawJson('-9223372036854775809'),
  new RawJson('1e309'),
  new RawJson('-0'),
  new RawJson('1e2'),
];
const WRONG_TYPES = [null, true, 0, 'text', [], {}, [null], { nested: { deeper: [] } }];

/** Values that are wrong or at the edge for a slot: types, ranges, lengths, characters. */
export function badValuesFor(schema: Schema): unknown[] {
  const s = concrete(schema);
  const type = typeOf(s);
  const values: unknown[] = [...WRONG_TYPES];
  if (type === 'string') {
    values.push(...WEIRD_STRINGS);
    if (s.maxLength !== undefined) values.push('y'.repeat(s.maxLength + 1));
  }
  if (type === 'integer' || type === 'number') {
    values.push(...BAD_NUMBERS);
    if (s.minimum !== undefined) values.push(s.minimum - 1);
    if (s.maximum !== undefined) values.push(s.maximum, s.maximum + 1);
  }
  if (type === 'array') {
    values.push(Array.from({ length: (s.maxItems ?? 100) + 1 }, () => 'dup'));
    values.push([[[['deep']]]]);
  }
  if (type === 'object') {
    values.push(
      Object.fromEntries(
        Array.from({ length: (s.maxProperties ?? 100) + 1 }, (_, i) => [`k${i}`, 'v']),
      ),
    );
    values.push({ ['k'.repeat(41)]: 'v' }, { '': 'v' });
  }
  return values;
}

/** Random JSON values of every shape (for the long runs). */
export function randomValues(count: number, seed: number): unknown[] {
  return fc.sample(
    fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.string({ unit: 'binary', maxLength: 64 }),
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    ),
    { numRuns: count, seed },
  );
}

const DEPTH = 20_000;
/** Bodies that are not JSON objects, or barely JSON at all. */
export const MALFORMED_BODIES: [string, string | Buffer][] = [
  ['truncated', '{"name": "trunc'],
  ['missing value', '{"a":}'],
  ['single quotes', "{'name': 'x'}"],
  ['trailing comma', '{"name":"x",}'],
  ['two documents', '{"a":1}{"b":2}'],
  ['comment', '{"a":1 /* c */}'],
  ['NaN', '{"a":NaN}'],
  ['byte order mark', '\ufeff{}'],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ['whitespace only', '   \n  '],
  ['null', 'null'],
  ['array', '[]'],
  ['string', '"text"'],
  ['number', '123'],
  ['true', 'true'],
  ['huge exponent', '{"a":1e999999999}'],
  ['deep arrays', '['.repeat(DEPTH) + ']'.repeat(DEPTH)],
  ['deep objects', '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH)],
  [
    'deep objects hiding __proto__',
    '{"a":'.repeat(DEPTH) + '{"__proto__":{"x":1}}' + '}'.repeat(DEPTH),
  ],
  ['__proto__ key', '{"__proto__":{"polluted":"yes"}}'],
  ['constructor.prototype', '{"constructor":{"prototype":{"polluted":"yes"}}}'],
  ['nested __proto__', '{"metadata":{"__proto__":"x"},"lines":[{"__proto__":{"a":1}}]}'],
  ['escaped __proto__', '{"\\u005f_proto__":{"polluted":"yes"}}'],
];

/** [content type, body]: everything that is not an application/json body. */
export const WRONG_CONTENT_TYPES: [string | undefined, string][] = [
  ['text/plain', '{}'],
  ['application/x-www-form-urlencoded', 'name=x&email=y'],
  [
    'multipart/form-data; boundary=fuzz',
    '--fuzz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--fuzz--',
  ],
  ['application/xml', '<customer/>'],
  ['application/json-patch+json', '[]'],
  ['application/jsonx', '{}'],
  ['application/json; charset=utf-16', '{}'],
  ['json', '{}'],
  [undefined, '{}'],
];

export const BAD_PATH_VALUES = [
  'x',
  'a'.repeat(101),
  'a'.repeat(300),
  encodeURIComponent('ünï 🎉'),
  '%00',
  '%2F..%2F..',
  '..',
  encodeURIComponent("'; DROP TABLE invoices; --"),
  '%ZZ',
  '%E0%A4%A',
];

export const BAD_QUERY_VALUES = [
  '',
  '0',
  '-1',
  '101',
  '1.5',
  'abc',
  '1e2',
  '%00',
  encodeURIComponent('ünï'),
  'q'.repeat(2000),
];

export const BAD_IDEMPOTENCY_KEYS = ['', 'k'.repeat(256), 'clé-\u00e9'];

export const BAD_AUTHORIZATIONS: (string | undefined)[] = [
  undefined,
  'Basic Zm9vOmJhcg==',
  'Bearer',
  'Bearer sk_test_notakeyatall',
  'Bearer sk_live_' + 'A'.repeat(40),
  'Token abc',
];
