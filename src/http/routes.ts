// The common shapes of the API's routes, so that a module's routes.ts states only each route's
// schema, scope and service call: a read answers what the service returns; a list reads its
// page request and shapes the page (../paging.ts); a write takes an Idempotency-Key and answers
// its success status, the only 2xx of its response schema (./idempotency.ts).
import type { Static, TSchema, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyInstance,
  FastifyRequest,
  FastifySchema,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { WriteRequest, Written } from '../db/unit-of-work.ts';
import type { Scope } from '../keys/scopes.ts';
import type { Actor } from '../tenancy.ts';
import { JsonText } from '../json-text.ts';
import {
  buildPage,
  listBinding,
  pageJson,
  readPageRequest,
  type CursorSigner,
  type PageRequest,
} from '../paging.ts';
import { sendWrite } from './idempotency.ts';
import { errorResponses, IdempotencyHeaders, IdParams } from './schemas.ts';

/** A request typed by its route's schema. */
export type SchemaRequest<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  S,
  TypeBoxTypeProvider
>;

/** The paging parameters every list's query has (./schemas.ts, PageQuery). */
type PagingQuery = { limit?: number; cursor?: string };

type WriteMethod = 'POST' | 'PATCH' | 'DELETE';

/** A list's filters: its query without the page's limit and cursor. */
export type ListFilters<Q extends TSchema> = Omit<Static<Q>, keyof PagingQuery>;

/** A list's row: its position is (created_at, id); created_at as a Date, or its text. */
type ListRow = { created_at: Date | string; id: string };

/**
 * What a list says about itself: its name and filters (bound into its cursors; by default
 * every filter given, as text), its rows, and each row's item: an object the schema
 * serialises (`item`), or, from rows read as text (src/db/text-rows.ts), its JSON (`json`).
 */
export type Listing<Filters, Row, Item> = {
  list: string;
  filters?: (filters: Filters) => Record<string, string | undefined>;
  rows: (actor: Actor, filters: Filters, page: PageRequest) => Promise<Row[]>;
} & ({ item: (row: Row) => Item } | { json: (row: Row) => string });

const JSON_TYPE = 'application/json; charset=utf-8';

/** How a rendered document is described: its summary and description in the document. */
export interface DocumentRoute {
  summary: string;
  description: string;
}

function asText(filters: object): Record<string, string | undefined> {
  const given = Object.entries(filters).filter(([, value]) => value !== undefined);
  return Object.fromEntries(given.map(([name, value]) => [name, String(value)]));
}

function successStatus(response: unknown): number {
  const statuses = Object.keys(response ?? {}).map(Number);
  const success = statuses.filter((status) => status >= 200 && status < 300);
  if (success.length !== 1) throw new Error('a write names exactly one success status');
  return success[0]!;
}

/**
 * The route shapes of one module's scope (`server`): its routes are documented under `tags`
 * (unless a schema names its own), its lists' cursors signed by `cursors`.
 */
export function apiRoutes(server: FastifyInstance, cursors: CursorSigner, tags: string[]) {
  // Typed by each route's own schema (SchemaRequest), not by the instance's provider.
  const app = server;
  const routes = {
    /**
     * GET `url`: the service's answer, as the schema's 200 serialises it (`expensive`: it takes
     * turns with other tenants', ./expensive-requests.ts). "POST `url`" for a computation that
     * takes a body and changes nothing (a preview): no Idempotency-Key, nothing kept.
     */
    read<S extends FastifySchema>(
      route: string,
      scope: Scope | null,
      schema: S,
      answer: (request: SchemaRequest<S>) => unknown,
      expensive?: 'large-page',
    ): void {
      const [method, url] = route.startsWith('POST ') ? ['POST', route.slice(5)] : ['GET', route];
      app.route({
        method,
        url,
        config: { scope, expensive },
        schema: { tags, ...schema } as FastifySchema,
        handler: async (request, reply) => {
          const answered = await answer(request as unknown as SchemaRequest<S>);
          return answered instanceof JsonText
            ? reply.type(JSON_TYPE).send(answered.text)
            : answered;
        },
      });
    },

    /** GET `url`: one page of a list, newest first; a page above the default size is expensive. */
    list<Q extends TSchema, Row extends ListRow, Item>(
      url: string,
      scope: Scope,
      schema: FastifySchema & { querystring: Q },
      listing: Listing<ListFilters<Q>, Row, Item>,
    ): void {
      this.read(
        url,
        scope,
        schema,
        async ({ actor, query }) => {
          const { limit, cursor, ...given } = query as PagingQuery;
          const filters = given as ListFilters<Q>;
          const bound = listing.filters?.(filters) ?? asText(filters);
          const binding = listBinding(actor, listing.list, bound);
          const page = readPageRequest(cursors, { limit, cursor }, binding);
          const rows = await listing.rows(actor, filters, page);
          if ('json' in listing) {
            const textRows = rows as (Row & { created_at: string })[];
            return new JsonText(pageJson(cursors, textRows, page, binding, listing.json));
          }
          const dateRows = rows as (Row & { created_at: Date })[];
          return buildPage(cursors, dateRows, page, binding, listing.item);
        },
        'large-page',
      );
    },

    /**
     * A write at `route` ("POST /v1/customers"), safe to retry with an Idempotency-Key
     * (`expensive`: it takes turns with other tenants', ./expensive-requests.ts).
     */
    write<S extends FastifySchema>(
      route: `${WriteMethod} /${string}`,
      scope: Scope,
      schema: S,
      call: (write: WriteRequest, request: SchemaRequest<S>) => Promise<Written<unknown>>,
      expensive?: true,
    ): void {
      const status = successStatus(schema.response);
      const [method, url] = route.split(' ') as [WriteMethod, string];
      app.route({
        method,
        url,
        config: { scope, expensive },
        schema: { tags, headers: IdempotencyHeaders, ...schema } as FastifySchema,
        handler: async (request, reply) =>
          sendWrite(request, reply, status, (write) =>
            call(write, request as unknown as SchemaRequest<S>),
          ),
      });
    },

    /** GET `url` (…/:id/pdf): the PDF the service keeps for the record, shown inline. */
    pdf(
      url: string,
      scope: Scope,
      doc: DocumentRoute,
      render: (actor: Actor, id: string) => Promise<{ filename: string; pdf: Uint8Array }>,
    ): void {
      const binary = { type: 'string', format: 'binary' };
      const served = { type: 'application/pdf', schema: binary, disposition: 'inline' };
      documentRoute(
        url,
        scope,
        doc,
        { ...served, description: 'The PDF document.' },
        [404],
        (request) =>
          render(request.actor, (request.params as { id: string }).id).then(
            ({ filename, pdf }) => ({ filename, body: pdf }),
          ),
      );
    },

    /** GET `url` (…/:id/e-invoice): the e-invoice's XML, as an attachment. */
    einvoice<Q extends TSchema>(
      url: string,
      scope: Scope,
      doc: DocumentRoute & { querystring: Q },
      render: (
        actor: Actor,
        id: string,
        query: Static<Q>,
      ) => Promise<{ filename: string; xml: Uint8Array | string }>,
    ): void {
      const served = {
        type: 'application/xml',
        schema: { type: 'string' },
        disposition: 'attachment',
      };
      documentRoute(
        url,
        scope,
        doc,
        { ...served, description: 'The e-invoice.' },
        [404, 409],
        (request) =>
          render(
            request.actor,
            (request.params as { id: string }).id,
            request.query as Static<Q>,
          ).then(({ filename, xml }) => ({ filename, body: xml })),
      );
    },
  };
  return routes;

  /** A document of a record (its PDF, its e-invoice): served as a file, not as JSON; expensive. */
  function documentRoute(
    url: string,
    scope: Scope,
    doc: DocumentRoute,
    served: { type: string; schema: object; disposition: string; description: string },
    errors: number[],
    render: (request: FastifyRequest) => Promise<{ filename: string; body: Uint8Array | string }>,
  ): void {
    const { type, schema, disposition, description } = served;
    app.route({
      method: 'GET',
      url,
      config: { scope, expensive: true },
      schema: {
        tags,
        ...doc,
        params: IdParams,
        response: {
          200: { description, content: { [type]: { schema } } },
          ...errorResponses(...errors),
        },
      },
      handler: async (request, reply) => {
        const { filename, body } = await render(request);
        return reply
          .type(type)
          .header('content-disposition', `${disposition}; filename="${filename}"`)
          .send(body);
      },
    });
  }
}

/** The route shapes of one module's scope (apiRoutes). */
export type ApiRoutes = ReturnType<typeof apiRoutes>;
