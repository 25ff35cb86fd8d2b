// A list of the API: awaiting it gives its first page; iterating it (`for await`) walks every
// page through `nextCursor`, item by item, fetching each page only when it is reached.
import type { WithResponse } from './transport.ts';
import type { Page } from './types.ts';

/** How many items `toArray()` collects when not told otherwise. */
export const TO_ARRAY_DEFAULT_LIMIT = 10_000;

export interface ToArrayOptions {
  /**
   * The most items the array may hold (default 10,000). A list with more is refused with a
   * ListLimitExceededError rather than cut short: a silently truncated array would look like the
   * whole list. Walk longer lists with `for await`, or raise the limit knowingly.
   */
  limit?: number;
}

/** `toArray()` met more items than its limit allows. */
export class ListLimitExceededError extends RangeError {
  override readonly name = 'ListLimitExceededError';
  readonly limit: number;

  constructor(limit: number) {
    super(
      `The list has more than ${limit} items: iterate it with for await, or pass toArray({ limit }) a higher limit.`,
    );
    this.limit = limit;
  }
}

export class List<T> implements AsyncIterable<T>, PromiseLike<WithResponse<Page<T>>> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<WithResponse<Page<T>>>;
  #first: Promise<WithResponse<Page<T>>> | undefined;

  constructor(fetchPage: (cursor: string | undefined) => Promise<WithResponse<Page<T>>>) {
    this.#fetchPage = fetchPage;
  }

  /** The first page (fetched once, however often it is awaited). */
  firstPage(): Promise<WithResponse<Page<T>>> {
    this.#first ??= this.#fetchPage(undefined);
    return this.#first;
  }

  then<A = WithResponse<Page<T>>, B = never>(
    onFulfilled?: ((page: WithResponse<Page<T>>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  /** Every page in turn, the first included. */
  async *pages(): AsyncGenerator<WithResponse<Page<T>>, void, undefined> {
    let page = await this.firstPage();
    yield page;
    while (page.nextCursor !== null) {
      page = await this.#fetchPage(page.nextCursor);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /**
   * Every item of every page, in an array, for lists known to be short: at most `limit` items
   * (default 10,000); a longer list throws ListLimitExceededError, and no page after the one
   * that went past the limit is fetched.
   */
  async toArray(options: ToArrayOptions = {}): Promise<T[]> {
    const limit = options.limit ?? TO_ARRAY_DEFAULT_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`toArray: limit must be a positive integer, not ${limit}`);
    }
    const items: T[] = [];
    for await (const item of this) {
      if (items.length === limit) throw new ListLimitExceededError(limit);
      items.push(item);
    }
    return items;
  }
}
