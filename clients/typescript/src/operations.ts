// How a resource reaches the API: an operation by its id (typed by the generated schema), a
// list by its path. The client hands one to each resource kept in a file of its own.
import type { List } from './list.ts';
import type { ApiRequest, RequestOptions, WithResponse } from './transport.ts';
import type { ListItem, OperationId, Query, Result } from './types.ts';

export interface Operations {
  call<Op extends OperationId>(
    method: ApiRequest['method'],
    path: string,
    options?: RequestOptions & { body?: unknown; query?: ApiRequest['query'] },
  ): Promise<WithResponse<Result<Op>>>;
  list<Op extends OperationId>(path: string, query: Query<Op> | undefined): List<ListItem<Op>>;
}

/** An id as one segment of a path. */
export const segment = (id: string) => encodeURIComponent(id);
