// The OpenAPI document as a product: what @fastify/swagger generates from the route schemas,
// told what it cannot see itself. Per route (`describeRoute`): the operationId, the required
// scope (from the route's config) and the security of unauthenticated routes. For the whole
// document (`finishDocument`): titled schemas become shared components (openapi-components.ts),
// response descriptions and headers, optional bodies, media-type examples, tags, servers. Every
// rule applies to every route, present and future; a route states only what is its own (schema,
// summary, scope).
import type { RouteOptions } from 'fastify';
import {
  ERROR_DESCRIPTIONS,
  errorResponseComponents,
  errorResponseName,
  RESPONSE_HEADERS,
  successHeaders,
} from './openapi-responses.ts';
import { shareTitledSchemas, type Document } from './openapi-components.ts';

// The document is JSON of many shapes, walked generically.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

// ---- operation ids ----------------------------------------------------------------------

// Actions named by a verb (`/v1/invoices/{id}/issue`); any other last segment that is not a
// collection is a thing the POST creates (`hosted-link` → createInvoiceHostedLink).
const ACTION_VERBS = new Set([
  'issue',
  'pay',
  'void',
  'send',
  'mark',
  'rotate',
  'revoke',
  'retry',
  'cancel',
  'pause',
  'resume',
  'preview',
  'advance',
]);

const pascal = (segment: string) =>
  segment
    .split(/[-_]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

function singular(segment: string): string {
  if (segment.endsWith('ies')) return `${segment.slice(0, -3)}y`;
  return segment.endsWith('s') ? segment.slice(0, -1) : segment;
}

const isParam = (segment: string | undefined) =>
  segment !== undefined && (segment.startsWith(':') || segment.startsWith('{'));

/**
 * camelCase verb + noun from the method and path: GET /v1/invoices → listInvoices, POST
 * /v1/invoices → createInvoice, GET /v1/invoices/{id}/pdf → getInvoicePdf, POST
 * /v1/invoices/{id}/mark-uncollectible → markInvoiceUncollectible. A route may name its own
 * (`schema.operationId`) where the path reads badly.
 */
export function operationIdOf(method: string, url: string, returnsPage: boolean): string {
  const segments = url
    .replace(/^\/v1(?=\/)/, '')
    .split('/')
    .filter((s) => s !== '');
  const last = segments.at(-1) ?? '';
  const nouns: string[] = [];
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    if (isParam(segment)) continue;
    nouns.push(pascal(isParam(segments[i + 1]) ? singular(segment) : segment));
  }
  const subject = nouns.join('');
  const verb = method.toLowerCase();
  if (isParam(last)) {
    const action = { get: 'get', patch: 'update', delete: 'delete', put: 'replace' }[verb];
    return `${action ?? verb}${subject}`;
  }
  const words = last.split('-');
  if (verb === 'get') return `${returnsPage ? 'list' : 'get'}${subject}${pascal(last)}`;
  if (verb === 'patch') return `update${subject}${pascal(last)}`;
  if (verb === 'delete') return `delete${subject}${pascal(last)}`;
  if (last.endsWith('s')) return `create${subject}${pascal(singular(last))}`;
  if (ACTION_VERBS.has(words[0]!))
    return `${words[0]}${subject}${pascal(words.slice(1).join('-'))}`;
  return `create${subject}${pascal(last)}`;
}

// ---- per route ----------------------------------------------------------------------------

function returnsPage(schema: Json | undefined): boolean {
  const ok = schema?.response?.[200];
  return Boolean(ok?.properties?.nextCursor);
}

/**
 * The errors every write may give, whatever its route lists: a body over 1 MiB (413) or not
 * JSON (415), also on DELETE and bodiless actions; and with an Idempotency-Key, a request still
 * running (409 idempotency_key_in_use) or a key used for another request (422).
 */
function writeErrors(method: string, schema: Json): Json {
  if (method === 'GET' || method === 'HEAD') return {};
  const envelope = { $ref: 'ErrorEnvelope' };
  const errors: Json = { 413: envelope, 415: envelope };
  if (schema.headers?.properties?.['idempotency-key']) {
    Object.assign(errors, { 409: envelope, 422: envelope });
  }
  return errors;
}

function scopeLine(scope: unknown): string {
  if (typeof scope === 'string') return `**Scope:** \`${scope}\`.`;
  if (Array.isArray(scope))
    return `**Scope:** the read scope of the object: ${scope.map((s) => `\`${s}\``).join(', ')}.`;
  return '**Scope:** none: any valid API key.';
}

/**
 * @fastify/swagger's `transform`: the route's document schema with what its options know
 * (operationId, required scope, security). The route's own schema, which validates and
 * serialises, is not changed.
 */
export function describeRoute({
  schema,
  url,
  route,
}: {
  schema: Json;
  url: string;
  route: RouteOptions;
}) {
  if (!schema || schema.hide) return { schema, url };
  const method = Array.isArray(route.method) ? route.method[0]! : route.method;
  const config = (route.config ?? {}) as { auth?: boolean; scope?: string | null };
  const described: Json = {
    ...schema,
    operationId: schema.operationId ?? operationIdOf(method, url, returnsPage(schema)),
    response: { ...writeErrors(method, schema), ...schema.response },
  };
  if (config.auth === false) {
    described.security = [];
    described['x-required-scope'] = null;
    described.description = [schema.description, '**Authentication:** none (no API key).']
      .filter(Boolean)
      .join('\n\n');
    return { schema: described, url };
  }
  const scope = schema['x-required-scope'] ?? config.scope ?? null;
  described['x-required-scope'] = scope;
  described.description = [schema.description, scopeLine(scope)].filter(Boolean).join('\n\n');
  return { schema: described, url };
}

// ---- the whole document -------------------------------------------------------------------

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

function* operations(document: Document): Generator<[string, string, Json]> {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) if (item[method]) yield [path, method, item[method]];
  }
}

function resolve(document: Document, schema: Json | undefined): Json | undefined {
  const name = schema?.$ref?.split('/').at(-1);
  return name ? document.components.schemas[name] : schema;
}

/**
 * @fastify/swagger marks every request body required, but a write sent without a body is read
 * as `{}` (app.ts): the body is required only where its schema requires a field. Without this
 * a client generated from the document would have to send `{}` to DELETE or to /issue. A body
 * schema's first `examples` entry becomes the media type's example, the body /docs offers.
 */
function describeBodies(document: Document): void {
  for (const [, , operation] of operations(document)) {
    const body = operation.requestBody;
    const media = body?.content?.['application/json'];
    if (!body || !media?.schema) continue;
    const schema = resolve(document, media.schema);
    body.required = (schema?.required ?? []).length > 0;
    if (Array.isArray(schema?.examples) && media.example === undefined) {
      media.example = schema.examples[0];
    }
  }
}

/** Human words for a component name: WebhookEndpoint → "webhook endpoint". */
const words = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

function successDescription(document: Document, method: string, status: string, media?: Json) {
  const name: string | undefined = media?.schema?.$ref?.split('/').at(-1);
  const schema = resolve(document, media?.schema);
  const item = schema?.properties?.data?.items?.$ref?.split('/').at(-1);
  if (item && schema?.properties?.nextCursor)
    return `A page of ${words(item)}s, newest first; \`nextCursor\` leads to the next.`;
  if (!name) return 'The result.';
  if (schema?.properties?.deleted) return `The deleted ${words(name).replace(/^deleted /, '')}.`;
  if (status === '201') return `The ${words(name)} created.`;
  if (method === 'get') return `The ${words(name)}.`;
  return `The ${words(name)}, changed.`;
}

const ENVELOPE = '#/components/schemas/ErrorEnvelope';

/**
 * Real descriptions and the response headers (components/headers) of every response; errors
 * refer to one shared response per status (components/responses).
 */
function describeResponses(document: Document): void {
  document.components.headers = RESPONSE_HEADERS;
  document.components.responses = errorResponseComponents();
  for (const [, method, operation] of operations(document)) {
    const authenticated = !Array.isArray(operation.security) || operation.security.length > 0;
    const idempotent = (operation.parameters ?? []).some(
      (p: Json) => p.in === 'header' && p.name === 'idempotency-key',
    );
    for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
      const shared = errorResponseName(status);
      const content = response.content ?? {};
      if (shared && content['application/json']?.schema?.$ref === ENVELOPE) {
        operation.responses[status] = { $ref: `#/components/responses/${shared}` };
        continue;
      }
      if (!response.description || response.description === 'Default Response') {
        response.description =
          ERROR_DESCRIPTIONS[status] ??
          successDescription(document, method, status, content['application/json']);
      }
      if (Number(status) < 300) {
        const contentTypes = Object.keys(content);
        response.headers = {
          ...successHeaders({ authenticated, idempotent, contentTypes }),
          ...response.headers,
        };
      }
    }
  }
}

/** Tags in the order of first use, with the descriptions given. */
function defineTags(document: Document, descriptions: Record<string, string>): void {
  const names: string[] = [];
  for (const [, , operation] of operations(document)) {
    for (const tag of operation.tags ?? []) if (!names.includes(tag)) names.push(tag);
  }
  document.tags = names.map((name) => ({
    name,
    description: descriptions[name] ?? `Operations on ${name.toLowerCase()}.`,
  }));
}

export interface DocumentOptions {
  tagDescriptions: Record<string, string>;
}

/** @fastify/swagger's `transformObject`: the generated document, finished. */
export function finishDocument<T>(generated: T, options: DocumentOptions): T {
  const document = generated as unknown as Document;
  shareTitledSchemas(document);
  describeBodies(document);
  describeResponses(document);
  defineTags(document, options.tagDescriptions);
  return generated;
}
