// Titled schemas as shared components of the OpenAPI document: every schema with a `title`
// becomes `#/components/schemas/<title>`, unions of string literals become enums, and the
// webhooks section is brought to the form @fastify/swagger gives the route schemas.

// The document is JSON of many shapes, walked generically.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export interface Document {
  paths: Record<string, Record<string, Json>>;
  components: Json & { schemas: Record<string, Json> };
  tags?: { name: string; description?: string }[];
  webhooks?: Record<string, Record<string, Json>>;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const SCHEMA_KEYS = ['type', 'properties', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref'];
const looksLikeSchema = (node: Json) => SCHEMA_KEYS.some((key) => key in node);
// Values that are data, not schemas: nothing in them is hoisted or rewritten.
const DATA_KEYS = new Set(['example', 'examples', 'enum', 'const', 'default']);

/** A union of string literals (TypeBox's Type.Union of Type.Literal) as one `enum`. */
function unionAsEnum(node: Json): Json | undefined {
  const branches = node.anyOf as Json[] | undefined;
  if (!Array.isArray(branches) || branches.length < 2) return undefined;
  const values: unknown[] = [];
  let nullable = false;
  for (const branch of branches) {
    if (branch.type === 'null' && Object.keys(branch).length === 1) nullable = true;
    else if (typeof branch.const === 'string') values.push(branch.const);
    else if (branch.enum?.length === 1 && typeof branch.enum[0] === 'string')
      values.push(branch.enum[0]);
    else return undefined;
  }
  const { anyOf: _anyOf, ...rest } = node;
  return nullable
    ? { ...rest, type: ['string', 'null'], enum: [...values, null] }
    : { ...rest, type: 'string', enum: values };
}

/**
 * A schema in the form @fastify/swagger gives the route schemas (`const` as a one-value `enum`,
 * a record's `patternProperties` as `additionalProperties`), for those it does not convert
 * (the webhooks section).
 */
function normalise(node: Json): Json {
  const out = { ...node };
  if ('const' in out && !('enum' in out)) {
    out.enum = [out.const];
    delete out.const;
  }
  const pattern = out.patternProperties?.['^(.*)$'];
  if (pattern && Object.keys(out.patternProperties).length === 1) {
    out.additionalProperties = pattern;
    delete out.patternProperties;
  }
  return out;
}

/**
 * Every schema with a `title` becomes `#/components/schemas/<title>` (its nullable uses
 * `anyOf: [$ref, null]`), so resources are shared types rather than repeated copies. Two
 * different schemas with one title are a mistake in the source, and refused.
 */
export function shareTitledSchemas(document: Document): void {
  const components = document.components.schemas;
  const canonical = new Map<string, string>();
  // @fastify/swagger moves a body's or response's own `examples` to its media type, so one
  // schema may arrive with and without them: they are compared without, and kept where found.
  const share = (title: string, schema: Json) => {
    const { examples: _examples, ...compared } = schema;
    const text = JSON.stringify(compared);
    const known = canonical.get(title);
    if (known !== undefined && known !== text)
      throw new Error(`OpenAPI: two different schemas are titled ${title}:\n${known}\n${text}`);
    if (known === undefined && components[title])
      throw new Error(`OpenAPI: the title ${title} is the name of another component`);
    canonical.set(title, text);
    if (known === undefined || schema.examples) components[title] = schema;
  };
  const visit = (node: unknown, root = false): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item));
    if (!isObject(node)) return node;
    let out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = DATA_KEYS.has(key) || key.startsWith('x-') ? value : visit(value);
    }
    out = normalise(unionAsEnum(out) ?? out);
    if (root || typeof out.title !== 'string' || !looksLikeSchema(out)) return out;
    const types = Array.isArray(out.type) ? (out.type as string[]) : undefined;
    if (types?.includes('null')) {
      const rest = types.filter((t) => t !== 'null');
      const schema: Json = { ...out, type: rest.length === 1 ? rest[0] : rest };
      if (Array.isArray(out.enum)) schema.enum = out.enum.filter((v: unknown) => v !== null);
      share(out.title, schema);
      return { anyOf: [{ $ref: `#/components/schemas/${out.title}` }, { type: 'null' }] };
    }
    share(out.title, out);
    return { $ref: `#/components/schemas/${out.title}` };
  };
  for (const [name, schema] of Object.entries(components)) {
    components[name] = visit(schema, true) as Json;
  }
  document.paths = visit(document.paths) as Document['paths'];
  if (document.webhooks) document.webhooks = visit(document.webhooks) as Document['webhooks'];
  // Components shared while visiting other components are visited too (their own children).
  for (const [name, schema] of Object.entries(components)) {
    components[name] = visit(schema, true) as Json;
  }
}
