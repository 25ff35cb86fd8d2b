// The standard routes of a resource, in the shapes every module shares: create (POST, 201),
// retrieve (GET …/:id), update (PATCH …/:id), list (GET, paged, newest first) and actions
// (POST …/:id/verb, DELETE …/:id). A module's routes.ts still names each route, its scope, its
// summary and its description; what the shapes have in common is stated here once: the id
// parameter, the resource as the answer, the usual error responses, the service call.
import type { Static, TSchema } from '@fastify/type-provider-typebox';
import type { WriteRequest, Written } from '../db/unit-of-work.ts';
import type { Scope } from '../keys/scopes.ts';
import type { Actor } from '../tenancy.ts';
import type { ApiRoutes, ListFilters, Listing } from './routes.ts';
import { errorResponses, IdParams, ListQuery, NoBody, Page } from './schemas.ts';

type ReadScope = Extract<Scope, `${string}:read`>;
type WriteScope = Extract<Scope, `${string}:write`>;

/** A route's words in the OpenAPI document. */
export interface RouteDoc {
  summary: string;
  description?: string;
}

/**
 * A write's words, with what it may answer where that is not the usual: `errors`, its error
 * statuses beyond those of every route (by default 404: the object, or one its body names, is
 * missing; 409: its state forbids it; 413 and 415: the body; 422: the Idempotency-Key was used
 * for another request), and `answer`, a schema other than the resource's.
 */
interface WriteDoc extends RouteDoc {
  errors?: number[];
  answer?: TSchema;
}

const WRITE_ERRORS = [404, 409, 413, 415, 422];

type Write<Args extends unknown[]> = (
  write: WriteRequest,
  ...args: Args
) => Promise<Written<unknown>>;

/** The standard routes of the resource `item` (its schema), among the module's `routes`. */
export function resourceRoutes<Item extends TSchema>(routes: ApiRoutes, item: Item) {
  return {
    /** POST `route`: makes one from the body and answers it with 201. */
    create<B extends TSchema>(
      route: `POST /${string}`,
      scope: WriteScope,
      { errors = WRITE_ERRORS, answer = item, ...doc }: WriteDoc & { body: B },
      create: Write<[body: Static<B>]>,
    ): void {
      const response = { 201: answer, ...errorResponses(...errors) };
      routes.write(route, scope, { ...doc, response }, (write, request) =>
        create(write, request.body as Static<B>),
      );
    },

    /** GET `url` (…/:id): the one with that id, or 404. */
    retrieve(
      url: `/${string}/:id`,
      scope: ReadScope,
      doc: RouteDoc,
      get: (actor: Actor, id: string) => Promise<unknown>,
    ): void {
      const response = { 200: item, ...errorResponses(404) };
      routes.read(url, scope, { ...doc, params: IdParams, response }, (request) =>
        get(request.actor, request.params.id),
      );
    },

    /** PATCH `route` (…/:id): changes the fields the body names; answers the resource. */
    update<B extends TSchema>(
      route: `PATCH /${string}/:id`,
      scope: WriteScope,
      { errors = WRITE_ERRORS, answer = item, ...doc }: WriteDoc & { body: B },
      update: Write<[id: string, body: Static<B>]>,
    ): void {
      const response = { 200: answer, ...errorResponses(...errors) };
      routes.write(route, scope, { ...doc, params: IdParams, response }, (write, request) =>
        update(write, request.params.id, request.body as Static<B>),
      );
    },

    /**
     * GET `url`: a page of the list, newest first, filtered by the query (`querystring`; by
     * default the page's limit and cursor only).
     */
    list<
      Row extends { created_at: Date | string; id: string },
      Q extends TSchema = typeof ListQuery,
    >(
      url: `/${string}`,
      scope: ReadScope,
      { querystring = ListQuery as TSchema as Q, ...doc }: RouteDoc & { querystring?: Q },
      listing: Listing<ListFilters<Q>, Row, unknown>,
    ): void {
      const response = { 200: Page(item), ...errorResponses() };
      routes.list(url, scope, { ...doc, querystring, response }, listing);
    },

    /**
     * A write on the object of the path's id: POST …/:id/verb (with its body, or none) or
     * DELETE …/:id. It answers with 200, or the `status` it names (201: it made a resource
     * under that object, as a payment of an invoice).
     */
    action<B extends TSchema = typeof NoBody>(
      route: `POST /${string}/:id/${string}` | `DELETE /${string}/:id`,
      scope: WriteScope,
      doc: WriteDoc & { body?: B; status?: 200 | 201 | 202 },
      act: Write<[id: string, body: Static<B>]>,
    ): void {
      const { errors = WRITE_ERRORS, answer = item, body = NoBody, status = 200, ...words } = doc;
      const response = { [status]: answer, ...errorResponses(...errors) };
      const schema: { params: typeof IdParams; body: TSchema } = { params: IdParams, body };
      routes.write(route, scope, { ...words, ...schema, response }, (write, request) =>
        act(write, request.params.id, request.body as Static<B>),
      );
    },
  };
}
