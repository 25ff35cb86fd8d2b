// Fuzzing scenario: every operation of the OpenAPI document the server publishes gets wrong
// types, missing and unknown fields, huge and negative numbers, Unicode and control
// characters, `__proto__`/`constructor` keys, deep nesting, malformed JSON, wrong content
// types, bad ids, query strings and headers, oversized headers and bodies, and requests that
// are not even well-formed HTTP. Every answer must be the envelope with a documented code and
// its status, no 5xx, and a refused request must leave every table exactly as it was.
import { connect } from 'node:net';
import { checksummer, changedTables, createScratchDatabase, tenantKey } from './databases.ts';
import { envelopeProblem } from './envelope.ts';
import { Tally, type Figures } from './figures.ts';
import {
  BAD_AUTHORIZATIONS,
  BAD_IDEMPOTENCY_KEYS,
  BAD_PATH_VALUES,
  BAD_QUERY_VALUES,
  MALFORMED_BODIES,
  WRONG_CONTENT_TYPES,
  badValuesFor,
  operationsOf,
  randomValues,
  slotsOf,
  toJson,
  validValue,
  withValueAt,
  type Operation,
  type ValueContext,
} from './fuzz-inputs.ts';
import { killChild, request, startChildServer, type ChildServer, type Reply } from './processes.ts';

export interface FuzzOptions {
  /** Bad values tried per body slot (rotating through the list), or Infinity for all. */
  valuesPerSlot: number;
  /** Random JSON values (fast-check) per body slot on top. */
  randomPerSlot: number;
  seed: number;
}

interface FuzzCase {
  name: string;
  method: string;
  path: string;
  /** Header overrides; `authorization: undefined` sends none. */
  headers?: Record<string, string | undefined>;
  body?: string | Buffer;
}

// Statuses any route may give without listing them: the router's and the body parser's.
const ANY_ROUTE = new Set([404, 405, 413, 415, 431]);
const ONE_MIB = 1024 * 1024;

export async function runFuzzScenario(adminUrl: string, options: FuzzOptions): Promise<Figures> {
  const tally = new Tally('fuzz');
  const database = await createScratchDatabase(adminUrl);
  let server: ChildServer | undefined;
  try {
    // No webhook worker: nothing but the requests may change the database.
    server = await startChildServer(database.url, { RUN_WORKER: 'false' });
    const live = server;
    const key = await tenantKey(database.db);
    const checksum = await checksummer(database.db);
    const get = (path: string) => request(live.url, 'GET', path, { key: key.secret });

    const document = (await request(live.url, 'GET', '/v1/openapi.json')).body;
    const operations = operationsOf(document);
    tally.note('operations', operations.length);
    tally.note('seed', options.seed);

    // Real ids for fields such as `customerId`: the newest object of the matching list.
    const ids = new Map<string, string | undefined>();
    const idFor = async (field: string) => {
      const list = `/v1/${field.replace(/Id$/, '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}s`;
      if (!ids.has(list)) ids.set(list, (await get(`${list}?limit=1`)).body?.data?.[0]?.id);
      return ids.get(list);
    };
    const contextFor = async (op: Operation): Promise<ValueContext> => {
      ids.clear();
      const fields = op.body ? slotsOf(op.body).map((s) => String(s.path.at(-1))) : [];
      const known = new Map<string, string | undefined>();
      for (const field of fields.filter((f) => /Id$/.test(f))) known.set(field, await idFor(field));
      return { idFor: (field) => known.get(field) };
    };

    // Fixtures: one valid object per collection, twice over (invoices need a customer first).
    for (let pass = 0; pass < 2; pass++) {
      for (const op of operations.filter((o) => o.method === 'POST' && o.pathParams.length === 0)) {
        const body = validValue(op.body ?? {}, 'body', await contextFor(op));
        await request(live.url, 'POST', op.template, { key: key.secret, body });
      }
    }
    // A payment, so that the routes of payments act on a real one: of an invoice issued for
    // the purpose (payments are made on an invoice, not in a collection of their own).
    if (document.paths?.['/v1/payments/{id}/void']) {
      const post = (path: string, body?: unknown) =>
        request(live.url, 'POST', path, { key: key.secret, body });
      const customerId = (await get('/v1/customers?limit=1')).body.data[0].id;
      const invoice = await post('/v1/invoices', {
        customerId,
        currency: 'eur',
        lines: [{ description: 'Fuzz', unitAmount: 1000 }],
      });
      await post(`/v1/invoices/${invoice.body.id}/issue`);
      const paid = await post(`/v1/invoices/${invoice.body.id}/payments`, {
        amount: 100,
        method: 'card',
      });
      tally.expect(paid.status === 201, () => `the payment fixture: ${paid.status} ${paid.text}`);
    }

    let baseline = await checksum();
    const run = async (op: Operation | undefined, c: FuzzCase, send: () => Promise<Reply>) => {
      const label = `${op ? `${op.method} ${op.template}` : 'raw HTTP'} [${c.name}]`;
      tally.count();
      let reply: Reply;
      try {
        reply = await send();
      } catch (error) {
        tally.fail(`${label}: no answer (${String((error as Error).cause ?? error)})`);
        return;
      }
      tally.max('slowestMs', Math.round(reply.ms));
      const problem = envelopeProblem(reply);
      if (problem) tally.fail(`${label}: ${problem}`);
      else if (reply.status >= 500)
        tally.fail(`${label}: ${reply.status} ${reply.text.slice(0, 200)}`);
      else if (
        op &&
        reply.status >= 400 &&
        !op.responses.has(reply.status) &&
        !ANY_ROUTE.has(reply.status)
      ) {
        tally.fail(`${label}: status ${reply.status} is not documented for the operation`);
      }
      const after = await checksum();
      if (reply.status >= 400) {
        tally.add('refused');
        const changed = changedTables(baseline, after).filter(
          (t) => !completedRender(baseline, after, t.split(' ')[0]!),
        );
        tally.expect(
          changed.length === 0,
          () => `${label}: refused (${reply.status}) but changed ${changed.join(', ')}`,
        );
      } else tally.add('accepted');
      baseline = after;
    };

    for (const op of operations) {
      const ctx = await contextFor(op);
      const path = await concretePath(op, get);
      for (const c of casesFor(op, path, ctx, options)) {
        await run(op, c, () => send(live.url, key.secret, c));
        if (live.child.exitCode !== null) break;
      }
      if (live.child.exitCode !== null) {
        tally.fail(
          `the server died during ${op.method} ${op.template}:\n${live.output().slice(-3000)}`,
        );
        break;
      }
    }
    for (const [name, text] of rawRequests(key.secret)) {
      await run(undefined, { name, method: 'RAW', path: '' }, () => rawRequest(live.url, text));
    }
    tally.expect(
      live.child.exitCode === null,
      () => `the server died:\n${live.output().slice(-3000)}`,
    );
  } finally {
    if (server) await killChild(server, 'SIGKILL');
    await database.drop();
  }
  return tally.figures();
}

/** The operation's path with real ids: the newest item of the list the path continues. */
async function concretePath(op: Operation, get: (path: string) => Promise<Reply>): Promise<string> {
  let path = op.template;
  for (const param of op.pathParams) {
    const prefix = path.slice(0, path.indexOf(`{${param}}`) - 1);
    let id: string | undefined = (await get(`${prefix}?limit=1`)).body?.data?.[0]?.id;
    if (id === undefined) {
      // A sub-resource without a list of its own, such as an invoice's lines.
      const cut = prefix.lastIndexOf('/');
      id = (await get(prefix.slice(0, cut))).body?.[prefix.slice(cut + 1)]?.[0]?.id;
    }
    path = path.replace(`{${param}}`, id ?? 'fuzz_missing_id');
  }
  return path;
}

function pick<T>(values: T[], count: number, offset: number): T[] {
  if (count >= values.length) return values;
  return Array.from({ length: count }, (_, i) => values[(offset + i) % values.length]!);
}

function* casesFor(
  op: Operation,
  path: string,
  ctx: ValueContext,
  options: FuzzOptions,
): Generator<FuzzCase> {
  const method = op.method;
  const base = op.body ? validValue(op.body, 'body', ctx) : undefined;
  const json = (value: unknown) => toJson(value);
  const baseBody = base === undefined ? undefined : json(base);
  yield { name: 'valid', method, path, body: baseBody };

  for (const authorization of BAD_AUTHORIZATIONS) {
    yield {
      name: `authorization ${authorization ?? 'absent'}`,
      method,
      path,
      body: baseBody,
      headers: { authorization },
    };
  }
  yield {
    name: 'oversized header',
    method,
    path,
    body: baseBody,
    headers: { 'x-fuzz-padding': 'p'.repeat(20_000) },
  };
  if (method !== 'GET') {
    for (const key of BAD_IDEMPOTENCY_KEYS) {
      yield {
        name: `idempotency key ${JSON.stringify(key.slice(0, 12))}…`,
        method,
        path,
        body: baseBody,
        headers: { 'idempotency-key': key },
      };
    }
  }

  for (const param of op.pathParams) {
    const at = op.template.split('/').indexOf(`{${param}}`);
    for (const value of BAD_PATH_VALUES) {
      const segments = path.split('/');
      segments[at] = value;
      yield {
        name: `path ${param}=${value.slice(0, 20)}`,
        method,
        path: segments.join('/'),
        body: baseBody,
      };
    }
  }

  yield { name: 'unknown query parameter', method, path: `${path}?fuzz=1`, body: baseBody };
  yield { name: 'bracketed query parameter', method, path: `${path}?a[b]=1&&&`, body: baseBody };
  for (const name of Object.keys(op.query)) {
    for (const value of BAD_QUERY_VALUES) {
      yield {
        name: `query ${name}=${value.slice(0, 20)}`,
        method,
        path: `${path}?${name}=${value}`,
        body: baseBody,
      };
    }
    yield {
      name: `query ${name} twice`,
      method,
      path: `${path}?${name}=1&${name}=2`,
      body: baseBody,
    };
  }

  if (!op.body) {
    if (method !== 'GET') {
      yield { name: 'unexpected JSON body', method, path, body: '{"fuzz":1}' };
      yield {
        name: 'unexpected text body',
        method,
        path,
        body: 'fuzz',
        headers: { 'content-type': 'text/plain' },
      };
    }
    return;
  }

  for (const [name, body] of MALFORMED_BODIES) yield { name: `body: ${name}`, method, path, body };
  for (const [type, body] of WRONG_CONTENT_TYPES) {
    yield {
      name: `content type ${type ?? 'absent'}`,
      method,
      path,
      body,
      headers: { 'content-type': type },
    };
  }
  yield { name: 'body over 1 MiB', method, path, body: `{"fuzz":"${'b'.repeat(ONE_MIB)}"}` };
  yield { name: 'empty object', method, path, body: '{}' };
  for (const required of op.body.required ?? []) {
    const { [required]: _gone, ...rest } = base as Record<string, unknown>;
    yield { name: `missing ${required}`, method, path, body: json(rest) };
  }
  yield {
    name: 'unknown field',
    method,
    path,
    body: json({ ...(base as object), fuzzUnknown: 1 }),
  };

  const cases: FuzzCase[] = [];
  slotsOf(op.body).forEach((slot, index) => {
    const where = slot.path.join('.');
    const s = slot.schema;
    if (s.type === 'object' || s.properties) {
      cases.push({
        name: `unknown field in ${where}`,
        method,
        path,
        body: json(withValueAt(base, op.body!, [...slot.path, 'fuzzUnknown'], 1, ctx)),
      });
    }
    const values = [
      ...pick(badValuesFor(s), options.valuesPerSlot, index * 3),
      ...randomValues(options.randomPerSlot, options.seed + index),
    ];
    for (const value of values) {
      const shown = JSON.stringify(value)?.slice(0, 24) ?? String(value);
      cases.push({
        name: `${where}=${shown}`,
        method,
        path,
        body: json(withValueAt(base, op.body!, slot.path, value, ctx)),
      });
    }
  });
  yield* cases;
}

function send(baseUrl: string, secret: string, c: FuzzCase): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(c.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return request(baseUrl, c.method, c.path, { raw: c.body, headers, timeoutMs: 15_000 });
}

/** Requests that are not well-formed HTTP/1.1, written to a socket as they are. */
function rawRequests(secret: string): [string, string][] {
  const auth = `Authorization: Bearer ${secret}\r\n`;
  const post = `POST /v1/customers HTTP/1.1\r\nHost: fuzz\r\n${auth}Content-Type: application/json\r\n`;
  return [
    ['garbage request line', 'GARBAGE\r\n\r\n'],
    ['unknown HTTP version', `GET /v1/customers HTTP/9.9\r\nHost: fuzz\r\n${auth}\r\n`],
    ['header without a colon', `GET /v1/customers HTTP/1.1\r\nHost: fuzz\r\nBroken\r\n${auth}\r\n`],
    [
      'NUL in a header',
      `GET /v1/customers HTTP/1.1\r\nHost: fuzz\r\nX-Fuzz: a\u0000b\r\n${auth}\r\n`,
    ],
    ['non-numeric Content-Length', `${post}Content-Length: abc\r\n\r\n{}`],
    [
      'Content-Length and chunked',
      `${post}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    ],
    ['bad chunk size', `${post}Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`],
    ['Content-Length too short', `${post}Content-Length: 5\r\n\r\n{"name":"x"}`],
    [
      'header section over 64 KiB',
      `GET /v1/customers HTTP/1.1\r\nHost: fuzz\r\nX-Big: ${'a'.repeat(65_536)}\r\n${auth}\r\n`,
    ],
    [
      'request line over 16 KiB',
      `GET /v1/customers?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: fuzz\r\n${auth}\r\n`,
    ],
  ];
}

/** Writes `text` to a new connection and reads the first response. */
function rawRequest(baseUrl: string, text: string): Promise<Reply> {
  const url = new URL(baseUrl);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error('no complete response within 10 s')), 10_000);
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      const parsed = error ? undefined : parseResponse(data, started);
      if (parsed) resolve(parsed);
      else
        reject(
          error ??
            new Error(`no response: ${JSON.stringify(data.toString('latin1').slice(0, 200))}`),
        );
    };
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      if (parseResponse(data, started)) finish();
    });
    socket.on('close', () => finish());
    socket.on('error', () => undefined);
    socket.write(Buffer.from(text, 'latin1'));
  });
}

function parseResponse(data: Buffer, started: number): Reply | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get('content-length') ?? NaN);
  const rest = data.subarray(end + 4);
  if (!Number.isFinite(length) || rest.length < length) return undefined;
  const text = rest.subarray(0, length).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return {
    status: Number(statusLine?.split(' ')[1]),
    headers,
    text,
    body,
    ms: performance.now() - started,
  };
}

/**
 * Whether `table` changed only as a queued render completing: an issue is answered before its
 * documents are rendered, and the first read of them renders them (docs/einvoices.md, "When
 * documents are rendered"), also a read refused 409 because the e-invoice cannot be made. That
 * completes the issue's own work; the queue loses rows and the documents gain them, and
 * nothing else changes.
 */
function completedRender(
  before: Map<string, string>,
  after: Map<string, string>,
  table: string,
): boolean {
  if (table !== 'documents' && table !== 'document_renders') return false;
  const rows = (sums: Map<string, string>, t: string) => Number(sums.get(t)?.split(':')[0]);
  const rendered = rows(before, 'document_renders') - rows(after, 'document_renders');
  return rendered > 0 && rows(after, 'documents') - rows(before, 'documents') === 3 * rendered;
}
