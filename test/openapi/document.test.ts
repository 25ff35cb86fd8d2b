import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../scripts/openapi/document.ts';
import { operationIdOf } from '../../src/http/openapi.ts';

// The OpenAPI document as a client developer reads it: every operation named, scoped and
// described, every response described, resources shared, enums as enums, and every example a
// valid request (the ones /docs offers for "Try it out").

const document = (await buildOpenApiDocument({ port: 3000 })) as Record<string, any>;
const operations = Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
  Object.entries<any>(item).map(([method, operation]) => ({ path, method, operation })),
);

const DOCUMENT_ID = 'https://billing.invalid/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addFormat('binary', true);
ajv.addSchema({ ...document, $id: DOCUMENT_ID });

/** Validates `value` against the schema at `pointer` (a JSON pointer into the document). */
function validAt(pointer: string, value: unknown): string | null {
  const validate = ajv.getSchema(`${DOCUMENT_ID}#${encodeURI(pointer)}`);
  assert.ok(validate, `a schema at ${pointer}`);
  return validate(value) ? null : ajv.errorsText(validate.errors);
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every node of the document with its JSON pointer. */
function* nodes(node: unknown, pointer = ''): Generator<[string, Record<string, any>]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* nodes(item, `${pointer}/${i}`);
  } else if (node !== null && typeof node === 'object') {
    yield [pointer, node as Record<string, any>];
    for (const [key, value] of Object.entries(node)) {
      if (key === 'example' || key === 'examples' || key === 'enum') continue;
      yield* nodes(value, `${pointer}/${escape(key)}`);
    }
  }
}

describe('the OpenAPI document', () => {
  it('names every operation once, camelCase verb and noun, with a summary', () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    assert.equal(new Set(ids).size, ids.length);
    for (const { path, method, operation } of operations) {
      assert.match(operation.operationId ?? '', /^[a-z]+[A-Z][A-Za-z]*$/, `${method} ${path}`);
      assert.ok(operation.summary, `${method} ${path} has a summary`);
    }
    for (const id of ['createInvoice', 'listInvoices', 'getInvoicePdf', 'issueInvoice'])
      assert.ok(ids.includes(id), id);
  });

  it('derives operation ids from the method and path', () => {
    assert.equal(operationIdOf('GET', '/v1/invoices', true), 'listInvoices');
    assert.equal(operationIdOf('POST', '/v1/invoices', false), 'createInvoice');
    assert.equal(operationIdOf('GET', '/v1/invoices/:id/pdf', false), 'getInvoicePdf');
    assert.equal(operationIdOf('POST', '/v1/invoices/:id/payments', false), 'createInvoicePayment');
    assert.equal(operationIdOf('GET', '/v1/payments', true), 'listPayments');
    assert.equal(
      operationIdOf('POST', '/v1/invoices/:id/mark-uncollectible', false),
      'markInvoiceUncollectible',
    );
    assert.equal(
      operationIdOf('POST', '/v1/invoices/:id/hosted-link', false),
      'createInvoiceHostedLink',
    );
    assert.equal(
      operationIdOf('GET', '/v1/webhook-endpoints/:id/deliveries', true),
      'listWebhookEndpointDeliveries',
    );
    assert.equal(operationIdOf('PATCH', '/v1/settings', false), 'updateSettings');
    assert.equal(
      operationIdOf('POST', '/v1/subscriptions/:id/cancel', false),
      'cancelSubscription',
    );
    assert.equal(
      operationIdOf('POST', '/v1/subscriptions/:id/preview-change', false),
      'previewSubscriptionChange',
    );
    assert.equal(operationIdOf('POST', '/v1/test-clocks/:id/advance', false), 'advanceTestClock');
  });

  it('gives every operation its scope, in x-required-scope and in the description', () => {
    for (const { path, method, operation } of operations) {
      const where = `${method} ${path}`;
      assert.ok('x-required-scope' in operation, where);
      const scope = operation['x-required-scope'];
      if (operation.security?.length === 0) {
        assert.equal(scope, null, where);
        assert.match(operation.description, /\*\*Authentication:\*\* none/, where);
      } else {
        assert.match(operation.description, /\*\*Scope:\*\*/, where);
        for (const each of [scope].flat().filter(Boolean))
          assert.ok(operation.description.includes(each), where);
      }
    }
    const create = document.paths['/v1/invoices'].post;
    assert.equal(create['x-required-scope'], 'invoices:write');
  });

  it('describes every response, with Request-Id, and RateLimit on every authenticated success', () => {
    for (const { path, method, operation } of operations) {
      for (const [status, given] of Object.entries<any>(operation.responses)) {
        const response = given.$ref
          ? document.components.responses[given.$ref.split('/').at(-1)]
          : given;
        const where = `${method} ${path} ${status}`;
        assert.ok(response.description && response.description !== 'Default Response', where);
        assert.ok(response.headers?.['Request-Id'], `${where}: Request-Id`);
        if (status.startsWith('2') && operation.security?.length !== 0) {
          assert.ok(response.headers.RateLimit, `${where}: RateLimit`);
        }
        if (status === '429' || status === '503') assert.ok(response.headers['Retry-After'], where);
      }
    }
    const pdf = document.paths['/v1/invoices/{id}/pdf'].get.responses['200'];
    assert.ok(pdf.content['application/pdf']);
    assert.ok(pdf.headers['Content-Disposition']);
    const xml = document.paths['/v1/invoices/{id}/e-invoice'].get.responses['200'];
    assert.ok(xml.content['application/xml']);
    const write = document.paths['/v1/customers'].post.responses['201'];
    assert.ok(write.headers['Idempotent-Replayed']);
  });

  it('shares the resources as components and has no anyOf of constants left', () => {
    for (const name of [
      'Customer',
      'Invoice',
      'CreditNote',
      'TaxRate',
      'Event',
      'WebhookEndpoint',
      'ApiKey',
      'Settings',
    ]) {
      assert.ok(document.components.schemas[name], name);
    }
    assert.deepEqual(
      document.paths['/v1/invoices/{id}'].get.responses['200'].content['application/json'].schema,
      {
        $ref: '#/components/schemas/Invoice',
      },
    );
    for (const [pointer, node] of nodes(document)) {
      const branches: any[] | undefined = node.anyOf ?? node.oneOf;
      if (!branches) continue;
      const constants = branches.filter((b) => 'const' in b || b.enum?.length === 1);
      assert.ok(constants.length < 2, `${pointer}: a union of constants instead of an enum`);
    }
  });

  it('types limit as an integer and the filters with the values responses carry', () => {
    const list = document.paths['/v1/invoices'].get.parameters;
    const limit = list.find((p: any) => p.name === 'limit');
    assert.deepEqual(
      { type: limit.schema.type, minimum: limit.schema.minimum, maximum: limit.schema.maximum },
      { type: 'integer', minimum: 1, maximum: 100 },
    );
    const status = list.find((p: any) => p.name === 'status');
    const invoice = document.components.schemas.Invoice;
    assert.deepEqual(status.schema.enum, invoice.properties.status.enum);
    const taxId = document.components.schemas.Customer.properties.taxIds.items;
    assert.equal(
      taxId.$ref,
      '#/components/schemas/TaxId',
      'the tax ids a customer returns are those it takes',
    );
    const eventType = document.paths['/v1/events'].get.parameters.find(
      (p: any) => p.name === 'type',
    );
    assert.deepEqual(eventType.schema.enum, document.components.schemas.Event.properties.type.enum);
    const data = document.components.schemas.EventData.properties.object;
    assert.equal(data.discriminator.propertyName, 'object');
    assert.ok(data.oneOf.length >= 6);
  });

  it('offers a valid example for every request body, and every example is valid', () => {
    let checked = 0;
    for (const { path, method, operation } of operations) {
      const media = operation.requestBody?.content?.['application/json'];
      if (!media) continue;
      const schema = media.schema.$ref
        ? document.components.schemas[media.schema.$ref.split('/').at(-1)]
        : media.schema;
      // Writes that take no field need no example: /docs sends nothing.
      if (Object.keys(schema.properties ?? {}).length === 0) continue;
      assert.ok(media.example !== undefined, `${method} ${path} has an example`);
    }
    for (const [pointer, node] of nodes(document)) {
      if ('example' in node && node.schema) {
        assert.equal(validAt(`${pointer}/schema`, node.example), null, `${pointer} example`);
        checked++;
      }
      const isSchema = 'type' in node || '$ref' in node || 'properties' in node;
      if (isSchema && Array.isArray(node.examples)) {
        for (const example of node.examples) {
          assert.equal(validAt(pointer, example), null, `${pointer} examples`);
          checked++;
        }
      }
    }
    assert.ok(checked > 40, `${checked} examples`);
  });

  it('documents the operational routes, names the server and the licence', () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      assert.deepEqual(document.paths[path].get.security, [], path);
    }
    assert.equal(document.servers[0].url, 'http://127.0.0.1:3000');
    assert.ok(document.info.license.name);
    assert.equal(document.info.title, 'Billing API');
  });
});
