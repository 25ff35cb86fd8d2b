// Every response the tests receive from the API is held to the OpenAPI document, so the
// document cannot drift from the server: the status is documented for the operation, the body
// matches the schema of that status and content type, and the headers the document requires
// are there (and match their schemas). The document is the one the server serves, built
// in-process (scripts/openapi/document.ts); the schemas are checked by Ajv (JSON Schema 2020-12,
// the dialect of OpenAPI 3.1).
//
// Installed for the whole suite by test/helpers.ts: it wraps the global fetch, so every
// request a test, a helper or the typed client makes goes through it; node:http and node:https
// requests are checked with `checkNodeResponse` where a test makes them. Not checked: pages for
// people (the /docs page and its files, the hosted invoice page: answers outside the document
// that are not JSON), and the answers
// Node's HTTP parser gives on raw sockets before any route runs (400 for a request that is not
// HTTP/1.1, 408 for one too slow to arrive, 431 for headers over 16 KiB: clientErrorResponse in
// src/http/error-handler.ts), which those tests hold to the error envelope themselves.
import { appendFileSync } from 'node:fs';
import { after } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../scripts/openapi/document.ts';

type Json = Record<string, any>;

export interface ReceivedResponse {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  /** The body as received; null for HEAD, or when it could not be read completely. */
  body: Uint8Array | null;
}

interface Operation {
  template: string;
  pattern: RegExp;
  methods: Record<string, Json>;
}

const DOCUMENT_ID = 'https://billing.invalid/openapi.json';

class Conformance {
  readonly #document: Json;
  readonly #ajv: Ajv2020;
  readonly #operations: Operation[];
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    this.#document = document;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(this.#ajv);
    this.#ajv.addFormat('binary', true);
    this.#ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    this.#operations = Object.entries<Json>(document.paths)
      .map(([template, methods]) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        methods,
      }))
      // Static segments win over parameters.
      .sort((a, b) => a.template.split('{').length - b.template.split('{').length);
  }

  #resolve(node: Json): Json {
    let resolved = node;
    while (resolved?.$ref) {
      const path = (resolved.$ref as string).replace(/^#\//, '').split('/');
      resolved = path.reduce((at: Json, part) => at?.[part.replace(/~1/g, '/')], this.#document);
    }
    return resolved;
  }

  /** The validator of the schema at a JSON pointer into the document. */
  #validator(pointer: string): ValidateFunction {
    let validate = this.#validators.get(pointer);
    if (!validate) {
      const found = this.#ajv.getSchema(`${DOCUMENT_ID}#${encodeURI(pointer)}`);
      if (!found) throw new Error(`no schema at ${pointer}`);
      validate = found;
      this.#validators.set(pointer, validate);
    }
    return validate;
  }

  #errors(validate: ValidateFunction): string {
    return this.#ajv.errorsText(validate.errors, { dataVar: 'body' });
  }

  /** Problems of one response; an empty list when it conforms. */
  problems(response: ReceivedResponse): string[] {
    const path = new URL(response.url).pathname;
    const method = response.method.toLowerCase();
    if (path === '/docs' || path.startsWith('/docs/')) return [];
    const operation = this.#operations.find((o) => o.pattern.test(path));
    const documented = operation?.methods[method === 'head' ? 'get' : method];
    if (!operation || !documented) {
      // Pages for people outside the document (the hosted invoice page and its downloads) are
      // not API operations; the API's own answer to an unknown path is always JSON.
      const type = response.headers.get('content-type') ?? '';
      if (!operation && !type.startsWith('application/json')) return [];
      return this.#unroutedProblems(response, operation);
    }
    const pointer = `/paths/${operation.template.replace(/\//g, '~1')}/${method === 'head' ? 'get' : method}`;
    const status = String(response.status);
    const responses = documented.responses ?? {};
    const key =
      status in responses ? status : `${status[0]}XX` in responses ? `${status[0]}XX` : 'default';
    if (!(key in responses)) {
      return [
        `status ${status} is not documented for ${method.toUpperCase()} ${operation.template}`,
      ];
    }
    const shared: string | undefined = responses[key].$ref;
    const at = shared ? shared.replace(/^#/, '') : `${pointer}/responses/${key}`;
    return this.#responseProblems(response, this.#resolve(responses[key]), at);
  }

  /** A path or method with no operation: the router's 404 or 405, or a connection-level error. */
  #unroutedProblems(response: ReceivedResponse, operation: Operation | undefined): string[] {
    const problems: string[] = [];
    const envelope = this.#envelopeProblems(response);
    problems.push(...envelope);
    if (response.status === 405) {
      if (!operation) problems.push('405 on a path no operation has');
      if (!response.headers.get('allow')) problems.push('405 without an Allow header');
    } else if (![404, 400, 408, 431, 503].includes(response.status)) {
      problems.push(
        `status ${response.status} for ${response.method} on a path without that operation`,
      );
    }
    if (!response.headers.get('request-id')?.startsWith('req_')) problems.push('no Request-Id');
    return problems;
  }

  #envelopeProblems(response: ReceivedResponse): string[] {
    if (response.body === null) return [];
    const validate = this.#validator('/components/schemas/ErrorEnvelope');
    const body = parseJson(response.body);
    if (body === undefined) return ['the body is not JSON'];
    return validate(body) ? [] : [`not the error envelope: ${this.#errors(validate)}`];
  }

  #responseProblems(response: ReceivedResponse, documented: Json, pointer: string): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries<Json>(documented.headers ?? {})) {
      const spec = this.#resolve(header);
      const value = response.headers.get(name);
      if (value === null) {
        if (spec.required) problems.push(`the required header ${name} is missing`);
        continue;
      }
      const schema = spec.schema ?? {};
      const typed = schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (!this.#ajv.validate(schema, typed)) {
        problems.push(`header ${name}: ${value}: ${this.#ajv.errorsText()}`);
      }
    }
    const content = documented.content as Json | undefined;
    const type = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (!content) {
      if (response.body && response.body.length > 0)
        problems.push('a body where none is documented');
      return problems;
    }
    if (!type || !(type in content)) {
      problems.push(`content type ${type} is not documented (${Object.keys(content).join(', ')})`);
      return problems;
    }
    if (response.body === null || !type.endsWith('json')) return problems;
    const body = parseJson(response.body);
    if (body === undefined) return [...problems, 'the body is not JSON'];
    const validate = this.#validator(`${pointer}/content/${type.replace(/\//g, '~1')}/schema`);
    if (!validate(body)) problems.push(`the body does not match: ${this.#errors(validate)}`);
    return problems;
  }
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

// ---- installation -------------------------------------------------------------------------

let conformance: Promise<Conformance> | undefined;
const apiOrigins = new Set<string>();
const failures: string[] = [];
let checked = 0;

function loadConformance(): Promise<Conformance> {
  conformance ??= buildOpenApiDocument().then((document) => new Conformance(document as Json));
  return conformance;
}

/** Responses from this origin are the API's, and all are checked (Request-Id or not). */
export function registerApiOrigin(url: string): void {
  apiOrigins.add(new URL(url).origin);
}

/** The API's responses are those from a registered server, or that carry its Request-Id. */
function isApiResponse(url: string, headers: Headers): boolean {
  return (
    apiOrigins.has(new URL(url).origin) || Boolean(headers.get('request-id')?.startsWith('req_'))
  );
}

/** Holds one response to the document; throws (and records, for the end of the file) if it strays. */
export async function checkResponse(response: ReceivedResponse): Promise<void> {
  if (!isApiResponse(response.url, response.headers)) return;
  const problems = (await loadConformance()).problems(response);
  checked++;
  if (problems.length === 0) return;
  const path = new URL(response.url).pathname + new URL(response.url).search;
  const message = `${response.method} ${path} → ${response.status} does not match the OpenAPI document:\n  ${problems.join('\n  ')}`;
  failures.push(message);
  throw new Error(message);
}

/** A response read with node:http or node:https (for what fetch would not send), checked. */
export function checkNodeResponse(
  method: string,
  url: string | URL,
  response: { statusCode?: number; headers: Record<string, string | string[] | undefined> },
  body: Buffer,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const each of [value ?? []].flat()) headers.append(name, each);
  }
  return checkResponse({
    method,
    url: String(url),
    status: response.statusCode ?? 0,
    headers,
    body: method === 'HEAD' ? null : new Uint8Array(body),
  });
}

/** Wraps the global fetch so that every response is checked before the caller sees it. */
export function installResponseValidation(): void {
  const original = globalThis.fetch as typeof fetch & { checked?: true };
  if (original.checked) return;
  const checking = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const method = (
      init?.method ?? (input instanceof Request ? input.method : 'GET')
    ).toUpperCase();
    const url = input instanceof Request ? input.url : String(input);
    const response = await original(input, init);
    if (!isApiResponse(response.url || url, response.headers)) return response;
    let body: Uint8Array | null = null;
    if (method !== 'HEAD') {
      try {
        body = new Uint8Array(await response.clone().arrayBuffer());
      } catch {
        // The body did not arrive whole (the server went away): nothing to hold to the document.
        return response;
      }
    }
    await checkResponse({
      method,
      url: response.url || url,
      status: response.status,
      headers: response.headers,
      body,
    });
    return response;
  };
  globalThis.fetch = Object.assign(checking, { checked: true as const });
  // A failure a test caught and ignored still fails its file: through the exit code, as a
  // throwing hook would keep the later ones (which stop the servers) from running.
  after(() => {
    if (failures.length === 0) return;
    console.error(
      `${failures.length} responses did not match the OpenAPI document:\n${failures.join('\n')}`,
    );
    process.exitCode = 1;
  });
  const log = process.env.RESPONSE_VALIDATION_LOG;
  if (log) process.on('exit', () => appendFileSync(log, `${checked}\n`));
}
