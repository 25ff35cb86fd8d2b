import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { buildOpenApiDocument } from '../../scripts/openapi/document.ts';

// docs/api.md is the integrators' guide: it must name every operation the OpenAPI document has,
// as `METHOD /path` with the document's path templates (`GET /v1/invoices/{id}`), and speak of
// the product as it is, not of how it was planned.

const document = (await buildOpenApiDocument({ port: 3000 })) as {
  paths: Record<string, Record<string, unknown>>;
};
const guide = await readFile(new URL('../../docs/api.md', import.meta.url), 'utf8');

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace']);
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.keys(item)
    .filter((method) => METHODS.has(method))
    .map((method) => `${method.toUpperCase()} ${path}`),
);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `text` names `operation`, and not merely a longer path that starts with it. */
function names(text: string, operation: string): boolean {
  return new RegExp(`${escapeRegExp(operation)}(?![\\w/{}.-])`).test(text);
}

describe('the guide (docs/api.md)', () => {
  it('tells a mention of an operation from a mention of a longer path', () => {
    assert.ok(names('`GET /v1/invoices`, newest first', 'GET /v1/invoices'));
    assert.ok(!names('`GET /v1/invoices/{id}`', 'GET /v1/invoices'));
    assert.ok(!names('`GET /v1/invoices/{id}/pdf`', 'GET /v1/invoices/{id}'));
    assert.ok(!names('`POST /v1/invoices`', 'GET /v1/invoices'));
  });

  it('names every operation of the OpenAPI document', () => {
    assert.ok(operations.length > 50, `${operations.length} operations in the document`);
    const missing = operations.filter((operation) => !names(guide, operation));
    assert.deepEqual(missing, [], `docs/api.md does not name: ${missing.join(', ')}`);
  });

  it('speaks of the product, not of how it was planned', () => {
    for (const pattern of [/\b[Pp]arts?\s+[A-D]\b/, /\bwaves?\b/i, /\bdecisions of \d{4}/i]) {
      const found = pattern.exec(guide);
      assert.ok(found === null, `docs/api.md says "${found?.[0]}"`);
    }
  });
});
